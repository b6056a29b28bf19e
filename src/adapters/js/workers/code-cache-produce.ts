/**
 * The server's producer of V8 code caches (code-cache.ts): `node <the workers' V8 flags> code-cache-produce.js
 * FILE`. It compiles FILE as the workers do, without running it, and writes the cached data under the hash of
 * the source it read: a private temp file created exclusively, then renamed into place. Started by the server
 * alone, in a sandbox where the cache folder is the only thing it may write (tsc.ts).
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import vm from "node:vm";
import { codeCacheDir, codeCacheFile, commonJsWrapper } from "./code-cache.js";

/** A temp file older than this was left by a producer killed while writing it. */
const STALE_TEMP_MS = 60_000;

function produce(file: string): void {
  const source = fs.readFileSync(file, "utf8");
  const dir = codeCacheDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  if (!st.isDirectory() || (typeof process.getuid === "function" && st.uid !== process.getuid()))
    throw new Error(`${dir} is not this user's folder`);
  removeStaleTemps(dir);
  const data = new vm.Script(commonJsWrapper(source), { filename: file }).createCachedData();
  const tmp = `${dir}/.${randomBytes(8).toString("hex")}.tmp`;
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  try {
    fs.writeFileSync(fd, data);
    fs.closeSync(fd);
    fs.renameSync(tmp, codeCacheFile(source, process.execArgv, dir));
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

function removeStaleTemps(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    if (!/^\.[0-9a-f]{16}\.tmp$/.test(name)) continue;
    try {
      if (Date.now() - fs.lstatSync(`${dir}/${name}`).mtimeMs > STALE_TEMP_MS) fs.rmSync(`${dir}/${name}`);
    } catch {
      // Gone meanwhile.
    }
  }
}

for (const file of process.argv.slice(2)) produce(file);
