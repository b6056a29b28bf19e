/**
 * The file modules this process has loaded: ES modules as the loader hook reports them
 * (loaded-modules-hook.ts) and CommonJS ones from the require cache (Node 20's hooks do not see a
 * `require`), and the files project code read through `fs` (an `eslint.config.js` that reads
 * `./banned.txt`). Installed by the ESLint worker before any config is loaded.
 */
import fs from "node:fs";
import { createRequire, register, syncBuiltinESMExports } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MessageChannel } from "node:worker_threads";

const urls = new Set<string>();
const waiting = new Map<number, () => void>();
let installed = false;
let nextSync = 0;
let port: import("node:worker_threads").MessagePort | undefined;
const require = createRequire(import.meta.url);

/** Starts recording (once); false when this Node cannot register a loader hook. */
export function recordLoadedModules(): boolean {
  if (installed) return true;
  if (typeof register !== "function") return false;
  const channel = new MessageChannel();
  port = channel.port1;
  port.on("message", (m: { url?: string; synced?: number }) => {
    if (m.url) urls.add(m.url);
    else if (m.synced !== undefined) waiting.get(m.synced)?.();
  });
  port.unref();
  register(new URL("./loaded-modules-hook.js", import.meta.url), {
    data: { port: channel.port2 },
    transferList: [channel.port2],
  });
  installed = true;
  recordFileReads();
  return true;
}

const read = new Set<string>();
/** This server's compiled code (the worker reads the linted files itself): its reads are not the config's. */
const OWN_CODE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The file of the first stack frame outside `fs` and this module: who asked for the read. */
function callerFile(): string | undefined {
  const here = fileURLToPath(import.meta.url);
  for (const line of (new Error().stack ?? "").split("\n").slice(2)) {
    const m = /\(?((?:file:\/\/)?\/[^():]+)(?::\d+){1,2}\)?$/.exec(line.trim());
    const file = m?.[1]?.startsWith("file://") ? fileURLToPath(m[1]) : m?.[1];
    if (file && file !== here) return file;
  }
  return undefined;
}

/** The path a read names (a string, Buffer or file URL; relative to the working folder); not an fd. */
function pathOf(p: unknown): string | undefined {
  if (typeof p === "string") return p.startsWith("file:") ? fileURLToPath(p) : path.resolve(p);
  if (p instanceof URL) return p.protocol === "file:" ? fileURLToPath(p) : undefined;
  if (Buffer.isBuffer(p)) return path.resolve(p.toString());
  return undefined;
}

/**
 * Records the files read through `fs` by code outside node_modules and the server's own (a config and the
 * modules it imports: ESLint's reads of the linted files come from its package), for the life of the
 * process. A config's reads are inputs of its verdict: a red team's
 * two projects with the same `eslint.config.js` reading a different `./banned.txt` shared one cached result.
 */
function recordFileReads(): void {
  const wrap = <T extends (...a: never[]) => unknown>(target: object, name: string) => {
    const original = (target as Record<string, T>)[name];
    if (typeof original !== "function") return;
    (target as Record<string, unknown>)[name] = function (this: unknown, ...args: Parameters<T>) {
      const file = pathOf(args[0]);
      if (file) {
        const caller = callerFile();
        const ours = caller?.startsWith(OWN_CODE + path.sep) ?? true;
        if (!ours && !caller?.split(path.sep).includes("node_modules")) read.add(file);
      }
      return original.apply(this, args);
    };
  };
  for (const name of ["readFileSync", "readFile", "openSync", "open", "createReadStream"]) wrap(fs, name);
  for (const name of ["readFile", "open"]) wrap(fs.promises, name);
  // `import { readFileSync } from "node:fs"` reads the module's own bindings: made to follow.
  syncBuiltinESMExports();
}

/** Every file module loaded so far (absolute paths, the query of a cache-busting URL dropped). */
export async function loadedModules(): Promise<string[]> {
  if (port) {
    const id = ++nextSync;
    await new Promise<void>((resolve) => {
      waiting.set(id, resolve);
      port?.postMessage({ sync: id });
    });
    waiting.delete(id);
  }
  const files = new Set<string>([...Object.keys(require.cache), ...read]);
  for (const url of urls) {
    try {
      files.add(fileURLToPath(url.replace(/[?#].*$/, "")));
    } catch {
      // not a file URL after all
    }
  }
  return [...files];
}

/** Whether the hook is installed (the ES modules' list is then complete). */
export function recordingModules(): boolean {
  return installed;
}
