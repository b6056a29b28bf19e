/**
 * The check daemon's wire format over its unix socket: newline-delimited JSON. The client sends one
 * request; the daemon answers with output frames and one final frame. Pure.
 */

/** Client → daemon. */
export type DaemonRequest =
  | {
      type: "check";
      argv: string[];
      cwd: string;
      /** What the client's own streams are, so colours and the progress display match a direct run. */
      stdoutTTY: boolean;
      stderrTTY: boolean;
      columns?: number;
      /** The build the client runs; a daemon of another build answers `stale`. */
      buildId: string;
    }
  | { type: "stop" }
  | { type: "status" };

/** Daemon → client. */
export type DaemonFrame =
  | { o: string }
  | { e: string }
  | { exit: number }
  | { stale: true }
  | { stopped: true }
  | { status: DaemonStatus };

export interface DaemonStatus {
  pid: number;
  started: string;
  served: number;
  idle_seconds: number;
  build_id: string;
}

/** The longest request line the daemon reads (argv and a path; far below this). */
export const MAX_REQUEST_BYTES = 1 << 20;

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

/** Parses a request line; undefined when it is not one. */
export function parseRequest(line: string): DaemonRequest | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  const r = v as Record<string, unknown>;
  if (r.type === "stop" || r.type === "status") return { type: r.type };
  if (
    r.type !== "check" ||
    !isStrings(r.argv) ||
    typeof r.cwd !== "string" ||
    !r.cwd.startsWith("/") ||
    typeof r.buildId !== "string" ||
    typeof r.stdoutTTY !== "boolean" ||
    typeof r.stderrTTY !== "boolean" ||
    (r.columns !== undefined && (typeof r.columns !== "number" || !Number.isInteger(r.columns)))
  )
    return undefined;
  return {
    type: "check",
    argv: r.argv,
    cwd: r.cwd,
    buildId: r.buildId,
    stdoutTTY: r.stdoutTTY,
    stderrTTY: r.stderrTTY,
    ...(r.columns !== undefined ? { columns: r.columns as number } : {}),
  };
}

export const frame = (f: DaemonFrame): string => JSON.stringify(f) + "\n";

/**
 * Splits a stream into lines, calling `onLine` for each complete one. Chunks are kept apart until a newline
 * comes, so a long line (a large JSON report in one frame) costs linear time.
 */
export class LineReader {
  private parts: string[] = [];
  private pending = 0;
  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: string): void {
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf("\n", start)) >= 0) {
      this.parts.push(chunk.slice(start, nl));
      const line = this.parts.join("");
      this.parts = [];
      this.pending = 0;
      start = nl + 1;
      this.onLine(line);
    }
    if (start < chunk.length) {
      this.parts.push(chunk.slice(start));
      this.pending += chunk.length - start;
    }
  }

  /** Characters of the line not yet complete. */
  get pendingLength(): number {
    return this.pending;
  }
}
