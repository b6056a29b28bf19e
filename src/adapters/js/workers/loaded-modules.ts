/**
 * The file modules this process has loaded: ES modules as the loader hook reports them
 * (loaded-modules-hook.ts) and CommonJS ones from the require cache (Node 20's hooks do not see a
 * `require`). Installed by the ESLint worker at its start, before any config is loaded.
 */
import { createRequire, register } from "node:module";
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
  return true;
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
  const files = new Set<string>(Object.keys(require.cache));
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
