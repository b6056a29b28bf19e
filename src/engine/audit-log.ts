/** JSON-lines audit log with size-based rotation to `<file>.1`, created owner-only. */
import { appendFileSync, mkdirSync, renameSync, statSync } from "node:fs";
import path from "node:path";
import { newestJsonEntries } from "./lines-from-end.js";

export interface AuditEntry {
  timestamp: string;
  operation: string;
  path: string | null;
  success: boolean;
  details: Record<string, unknown>;
}

/** Told every entry appended (a `check` recording its answer: src/check/answer/record.ts). */
type AuditTap = (file: string, maxBytes: number, entry: Record<string, unknown>) => void;
let tap: AuditTap | undefined;

export function tapAuditLog(next: AuditTap | undefined): void {
  tap = next;
}

export class AuditLog {
  constructor(
    readonly file: string,
    private readonly maxBytes: number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  get rotatedFile(): string {
    return `${this.file}.1`;
  }

  /**
   * Appends one entry; failures are reported to onError and never fail the tool call.
   * The write is synchronous: a line costs microseconds that way (an async append costs a few hundred
   * through the thread pool, on every call), and entries can neither interleave nor race a rotation.
   */
  append(entry: Omit<AuditEntry, "timestamp"> & { timestamp?: string }): Promise<void> {
    const full = { timestamp: entry.timestamp ?? new Date().toISOString(), ...entry };
    tap?.(this.file, this.maxBytes, full);
    const line = JSON.stringify(full) + "\n";
    try {
      this.write(line);
    } catch (err) {
      this.onError(err);
    }
    return Promise.resolve();
  }

  /** Appends a line as it is (a replayed check's entries: src/check/answer/replay.ts); failures go to onError. */
  appendLine(line: string): void {
    try {
      this.write(line);
    } catch (err) {
      this.onError(err);
    }
  }

  private write(line: string): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const size = statSync(this.file, { throwIfNoEntry: false })?.size ?? 0;
    if (size > 0 && size + Buffer.byteLength(line) > this.maxBytes) renameSync(this.file, this.rotatedFile);
    appendFileSync(this.file, line, { mode: 0o600 });
  }

  /**
   * The most recent `limit` entries (oldest first), optionally of one operation, read across one rotation.
   * Files are read from their end, so the cost is that of the entries returned (and those skipped by
   * the filter on the way), not that of the whole history. Missing files read as empty and corrupt
   * lines are skipped.
   */
  async read(limit: number, filter: (e: AuditEntry) => boolean = () => true): Promise<AuditEntry[]> {
    return newestJsonEntries([this.file, this.rotatedFile], limit, (value) => {
      const entry = auditEntryOf(value);
      return entry && filter(entry) ? entry : undefined;
    });
  }
}

/** A line's value as an audit entry, if it is one. */
function auditEntryOf(value: unknown): AuditEntry | undefined {
  const v = value as AuditEntry;
  if (
    typeof v !== "object" ||
    v === null ||
    typeof v.operation !== "string" ||
    typeof v.timestamp !== "string"
  )
    return undefined;
  return v;
}
