/**
 * A V8 code cache for the large CommonJS tool bundles a worker loads (typescript.js is 9 MB: parsing and
 * compiling it is most of a fresh worker's first check, and `tsc` loads a 6 MB bundle instead). The
 * bundle is compiled with vm.Script and the cached data of an earlier worker, kept in the server's own
 * cache ($XDG_CACHE_HOME/mcp-code-quality/v8-code-cache, else ~/.cache/…), never in a project. After its
 * first request a worker that had no usable cache saves the functions compiled so far, so the next fresh
 * worker skips them.
 * Node 20 has no module.enableCompileCache (22.1+); this is the same idea for one file.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";

interface Loaded {
  script: vm.Script;
  cacheFile: string;
  /** Cached data was given and accepted. */
  hit: boolean;
}

const loaded: Loaded[] = [];
/** A temp file older than this was left by a worker killed while writing it. */
const STALE_TEMP_MS = 60_000;

function cacheDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), ".cache");
  return path.join(base, "mcp-code-quality", "v8-code-cache");
}

/** One cache file per bundle path, size, mtime and Node/V8 version (V8 rejects a mismatch anyway). */
function cacheFileFor(file: string, st: fs.Stats): string {
  const key = createHash("sha256")
    .update([file, st.size, st.mtimeMs, process.version, process.arch].join("\0"))
    .digest("hex")
    .slice(0, 24);
  return path.join(cacheDir(), `${key}.bin`);
}

function readCache(cacheFile: string): Buffer | undefined {
  try {
    // No links followed: the cache is the server's own.
    const fd = fs.openSync(cacheFile, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** `require(file)` through vm.Script with a code cache; the module's exports. */
export function requireWithCodeCache(file: string): unknown {
  const st = fs.statSync(file);
  const cacheFile = cacheFileFor(file, st);
  const cachedData = readCache(cacheFile);
  const source = fs.readFileSync(file, "utf8");
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new vm.Script(wrapper, { filename: file, cachedData });
  loaded.push({ script, cacheFile, hit: Boolean(cachedData) && !script.cachedDataRejected });
  const mod = { exports: {} as unknown };
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  fn.call(mod.exports, mod.exports, createRequire(file), mod, file, path.dirname(file));
  return mod.exports;
}

/**
 * Writes the code compiled so far of each bundle loaded without a usable cache (once): a private temp
 * file created exclusively, then renamed into place. Failures only mean no cache next time.
 */
export function saveCodeCaches(): void {
  for (const entry of loaded.splice(0)) {
    if (entry.hit) continue;
    try {
      const dir = path.dirname(entry.cacheFile);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const st = fs.lstatSync(dir);
      if (!st.isDirectory() || (typeof process.getuid === "function" && st.uid !== process.getuid()))
        continue;
      removeStaleTemps(dir);
      // Computed before the file exists, so that the window in which a kill leaves a temp file is short.
      const data = entry.script.createCachedData();
      const tmp = path.join(dir, `.${randomBytes(8).toString("hex")}.tmp`);
      const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
      try {
        fs.writeFileSync(fd, data);
        fs.closeSync(fd);
        fs.renameSync(tmp, entry.cacheFile);
      } catch (err) {
        fs.rmSync(tmp, { force: true });
        throw err;
      }
    } catch {
      // A read-only or full disk: the next worker compiles from source.
    }
  }
}

function removeStaleTemps(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    if (!/^\.[0-9a-f]{16}\.tmp$/.test(name)) continue;
    const file = path.join(dir, name);
    try {
      if (Date.now() - fs.lstatSync(file).mtimeMs > STALE_TEMP_MS) fs.rmSync(file, { force: true });
    } catch {
      // Gone meanwhile.
    }
  }
}
