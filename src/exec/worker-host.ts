/**
 * The worker side of the pool: answers requests one at a time with the given handlers, and exits
 * when the server goes away (the IPC channel closes), so no worker outlives its server.
 */
import { WorkerHandlerError, type WorkerReplyMessage, type WorkerRequestMessage } from "./worker-protocol.js";

export type WorkerHandlers = Record<string, (params: never) => Promise<unknown>>;

export function serveWorker(handlers: WorkerHandlers): void {
  if (!process.send) throw new Error("a warm worker must be started with an IPC channel");
  const send = (reply: WorkerReplyMessage) => process.send?.(reply);
  process.on("disconnect", () => process.exit(0));
  // A plugin's stray async failure must not take the warm state down with it.
  process.on("uncaughtException", (err) => process.stderr.write(`worker: uncaught ${String(err)}\n`));
  process.on("unhandledRejection", (err) => process.stderr.write(`worker: unhandled ${String(err)}\n`));
  process.on("message", (raw: WorkerRequestMessage) => {
    const handler = handlers[raw.method];
    if (!handler) {
      send({ id: raw.id, ok: false, error: { message: `unknown method ${raw.method}`, kind: "exception" } });
      return;
    }
    handler(raw.params as never).then(
      (result) => send({ id: raw.id, ok: true, result }),
      (err: unknown) =>
        send({
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
