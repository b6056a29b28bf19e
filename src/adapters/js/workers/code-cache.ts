/**
 * A V8 code cache for the large CommonJS tool bundles a worker loads (typescript.js is 9 MB: parsing and
 * compiling it is most of a fresh worker's first check, and `tsc` loads a 6 MB bundle instead). The bundle is
 * compiled with vm.Script and cached data from the server's own cache ($XDG_CACHE_HOME/mcp-code-quality/
 * v8-code-cache, else ~/.cache/…).
 *
 * Workers only read it: V8 checks little more than the source's length before it runs cached code, so cached
 * data a worker wrote (one that ran a project's config or its own TypeScript) could run in every later worker.
 * The data is made by the server's producer (code-cache-produce.ts, started by the server after a worker
 * reports a miss), which compiles the bundle without running it, and each file is named by the hash of the
 * source it was made from, with the Node version and V8 flags: a worker finds data for exactly the source it
 * compiles. In the sandbox the folder is read-only for every tool (sandbox/host.ts).
 * Node 20 has no module.enableCompileCache (22.1+); this is the same idea for one file.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";

const missed = new Set<string>();

export function codeCacheDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), ".cache");
  return path.join(base, "mcp-code-quality", "v8-code-cache");
}

/** How Node wraps a CommonJS module: the script compiled and cached. */
export function commonJsWrapper(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
}

/** The cache file for a source: its hash with this Node's version, arch and V8 flags (V8 rejects a mismatch). */
export function codeCacheFile(
  source: string,
  execArgv: readonly string[] = process.execArgv,
  dir: string = codeCacheDir(),
): string {
  const key = createHash("sha256")
    .update([process.version, process.arch, execArgv.join(" "), ""].join("\0"))
    .update(source)
    .digest("hex")
    .slice(0, 40);
  return path.join(dir, `${key}.bin`);
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

/** `require(file)` through vm.Script with the server's code cache for its source; the module's exports. */
export function requireWithCodeCache(file: string): unknown {
  const source = fs.readFileSync(file, "utf8");
  const cachedData = readCache(codeCacheFile(source));
  const script = new vm.Script(commonJsWrapper(source), { filename: file, cachedData });
  if (!cachedData || script.cachedDataRejected) missed.add(file);
  const mod = { exports: {} as unknown };
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  fn.call(mod.exports, mod.exports, createRequire(file), mod, file, path.dirname(file));
  return mod.exports;
}

/** The files loaded without usable cached data since the last call: the server has them produced. */
export function takeCodeCacheMisses(): string[] {
  const out = [...missed];
  missed.clear();
  return out;
}
