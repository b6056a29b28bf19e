/**
 * The check daemon's wire format over its unix socket: newline-delimited JSON. The client says hello with a
 * nonce, the daemon answers with its nonce and its proof (auth.ts), the client sends one request carrying its
 * own proof, and the daemon answers with output frames and one final frame. Pure.
 */
import { NONCE_HEX } from "./auth.js";
import { isPerCommitVar } from "./key.js";

/** Client → daemon, first: a fresh nonce the daemon's proof must cover. */
export interface DaemonHello {
  type: "hello";
  nonce: string;
}

/** What a client asks the daemon to do. */
export type DaemonAsk =
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
  | {
      /** `hook pre-commit` (src/hooks/pre-commit.ts) for a git commit: its stderr and exit code come back. */
      type: "pre-commit";
      argv: string[];
      cwd: string;
      /** The variables git (and the human) set for this commit (key.ts: isPerCommitVar), used for it alone. */
      env: Record<string, string>;
      buildId: string;
    }
  | { type: "stop" }
  | { type: "status" };

/** Client → daemon, second: what to do, with the client's proof. */
export type DaemonRequest = DaemonAsk & { proof: string };

/** Daemon → client. */
export type DaemonFrame =
  | { hello: { nonce: string; proof: string } }
  | { o: string }
  | { e: string }
  | { exit: number }
  | { stale: true }
  /** The daemon will not serve this request (relax.ts): the client runs it in its own process. */
  | { refused: string }
  | { stopped: true }
  | { status: DaemonStatus };

export interface DaemonStatus {
  pid: number;
  started: string;
  served: number;
  /** Requests answering now, and waiting their turn (turns.ts). */
  running: number;
  waiting: number;
  idle_seconds: number;
  build_id: string;
}

/** The longest request line the daemon reads (argv and a path; far below this). */
export const MAX_REQUEST_BYTES = 1 << 20;

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === "object" && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Parses a hello line; undefined when it is not one. */
export function parseHello(line: string): DaemonHello | undefined {
  const r = parseObject(line);
  return r?.type === "hello" && typeof r.nonce === "string" && NONCE_HEX.test(r.nonce)
    ? { type: "hello", nonce: r.nonce }
    : undefined;
}

/** Parses the daemon's hello answer; undefined when it is not one. */
export function parseHelloAnswer(line: string): { nonce: string; proof: string } | undefined {
  const h = parseObject(line)?.hello as Record<string, unknown> | undefined;
  return typeof h === "object" &&
    h !== null &&
    typeof h.nonce === "string" &&
    NONCE_HEX.test(h.nonce) &&
    typeof h.proof === "string"
    ? { nonce: h.nonce, proof: h.proof }
    : undefined;
}

/** A pre-commit request's variables: strings, and only the per-commit ones (key.ts). */
function perCommitEnv(v: unknown): Record<string, string> | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (typeof x !== "string" || !isPerCommitVar(k)) return undefined;
    out[k] = x;
  }
  return out;
}

/** Parses a request line; undefined when it is not one (its proof is checked by the daemon, not here). */
export function parseRequest(line: string): DaemonRequest | undefined {
  const r = parseObject(line);
  if (!r || typeof r.proof !== "string") return undefined;
  const proof = r.proof;
  if (r.type === "stop" || r.type === "status") return { type: r.type, proof };
  if (r.type === "pre-commit") {
    const env = perCommitEnv(r.env);
    if (
      !isStrings(r.argv) ||
      typeof r.cwd !== "string" ||
      !r.cwd.startsWith("/") ||
      typeof r.buildId !== "string" ||
      !env
    )
      return undefined;
    return { type: "pre-commit", proof, argv: r.argv, cwd: r.cwd, env, buildId: r.buildId };
  }
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
    proof,
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
