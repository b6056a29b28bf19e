/**
 * A module loader hook (Node's `module.register`, run on the loader's own thread) that tells the ESLint
 * worker each file module it loads: the worker reports the modules an ESLint config loaded, which key its
 * cached results and restart the worker when they change. A `sync` message is answered after every
 * earlier one, so the worker knows it has them all.
 */
import type { MessagePort } from "node:worker_threads";

let port: MessagePort | undefined;

export function initialize(data: { port: MessagePort }): void {
  port = data.port;
  port.on("message", (m: { sync?: number }) => port?.postMessage({ synced: m.sync }));
  port.unref();
}

type NextLoad = (url: string, context: unknown) => Promise<unknown>;

export async function load(url: string, context: unknown, nextLoad: NextLoad): Promise<unknown> {
  if (url.startsWith("file:")) port?.postMessage({ url });
  return nextLoad(url, context);
}
