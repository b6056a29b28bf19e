/**
 * The worker side of the pool: answers requests one at a time with the given handlers, and exits
 * when the server goes away (the IPC channel closes), so no worker outlives its server.
 */
import { WorkerHandlerError, type WorkerReplyMessage, type WorkerRequestMessage } from "./worker-protocol.js";

export type WorkerHandlers = Record<string, (params: never) => Promise<unknown>>;

let loadedFiles: (() => Promise<readonly string[]>) | undefined;

/**
 * Names the files the worker's warm state depends on so far (the modules of a project's config): each reply
 * carries those not sent before, and the pool ends the worker when one changes.
 */
export function reportLoadedFiles(files: () => Promise<readonly string[]>): void {
  loadedFiles = files;
}

export function serveWorker(handlers: WorkerHandlers): void {
  if (!process.send) throw new Error("a warm worker must be started with an IPC channel");
  const reported = new Set<string>();
  const newlyLoaded = async (): Promise<string[] | undefined> => {
    if (!loadedFiles) return undefined;
    const fresh = (await loadedFiles()).filter((f) => !reported.has(f));
    for (const f of fresh) reported.add(f);
    return fresh.length ? fresh : undefined;
  };
  const send = async (reply: WorkerReplyMessage) => {
    const loaded = await newlyLoaded().catch(() => undefined);
    process.send?.(loaded ? { ...reply, loaded } : reply);
  };
  process.on("disconnect", () => process.exit(0));
  // A plugin's stray async failure must not take the warm state down with it.
  process.on("uncaughtException", (err) => process.stderr.write(`worker: uncaught ${String(err)}\n`));
  process.on("unhandledRejection", (err) => process.stderr.write(`worker: unhandled ${String(err)}\n`));
  process.on("message", (raw: WorkerRequestMessage) => {
    const handler = handlers[raw.method];
    if (!handler) {
      void send({
        id: raw.id,
        ok: false,
        error: { message: `unknown method ${raw.method}`, kind: "exception" },
      });
      return;
    }
    handler(raw.params as never).then(
      (result) => void send({ id: raw.id, ok: true, result }),
      (err: unknown) =>
        void send({
          id: raw.id,
          ok: false,
          error: {
            message: err instanceof Error ? err.message : String(err),
            kind: err instanceof WorkerHandlerError ? err.kind : "fatal",
          },
        }),
    );
  });
}
