/** The messages between the worker pool and a warm worker process (over the IPC channel, JSON). */

export interface WorkerRequestMessage {
  id: number;
  method: string;
  params: unknown;
}

export interface WorkerErrorPayload {
  message: string;
  /** A machine-readable kind the adapter maps to an error type (e.g. "invalid_input", "fatal"). */
  kind?: string;
}

export type WorkerReplyMessage = (
  { id: number; ok: true; result: unknown } | { id: number; ok: false; error: WorkerErrorPayload }
) & {
  /**
   * Files the worker loaded since its last reply that its warm state depends on (the modules of a project's
   * config): one that changes afterwards ends the worker before its next request.
   */
  loaded?: string[];
};

/** An error a worker handler throws on purpose: its `kind` travels to the adapter. */
export class WorkerHandlerError extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
    this.name = "WorkerHandlerError";
  }
}
