/** JSON-lines audit log with size-based rotation to `<file>.1`, created owner-only. */
import fs from "node:fs";
import path from "node:path";
import { linesFromEnd } from "./lines-from-end.js";

export interface AuditEntry {
  timestamp: string;
  operation: string;
  path: string | null;
  success: boolean;
  details: Record<string, unknown>;
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
    const line = JSON.stringify({ timestamp: entry.timestamp ?? new Date().toISOString(), ...entry }) + "\n";
    try {
      this.write(line);
    } catch (err) {
      this.onError(err);
    }
    return Promise.resolve();
  }

  private write(line: string): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const size = fs.statSync(this.file, { throwIfNoEntry: false })?.size ?? 0;
    if (size > 0 && size + Buffer.byteLength(line) > this.maxBytes)
      fs.renameSync(this.file, this.rotatedFile);
    fs.appendFileSync(this.file, line, { mode: 0o600 });
  }

  /**
   * The most recent `limit` entries (oldest first), optionally of one operation, read across one rotation.
   * Files are read from their end, so the cost is that of the entries returned (and those skipped by
   * the filter on the way), not that of the whole history. Missing files read as empty and corrupt
   * lines are skipped.
   */
  async read(limit: number, filter: (e: AuditEntry) => boolean = () => true): Promise<AuditEntry[]> {
    const newestFirst: AuditEntry[] = [];
    if (limit <= 0) return newestFirst;
    for (const file of [this.file, this.rotatedFile])
      for await (const line of linesFromEnd(file)) {
        const entry = parseEntry(line);
        if (!entry || !filter(entry)) continue;
        newestFirst.push(entry);
        if (newestFirst.length >= limit) return newestFirst.reverse();
      }
    return newestFirst.reverse();
  }
}

function parseEntry(line: string): AuditEntry | undefined {
  if (!line.trim()) return undefined;
  try {
    const v = JSON.parse(line) as AuditEntry;
    if (
      typeof v !== "object" ||
      v === null ||
      typeof v.operation !== "string" ||
      typeof v.timestamp !== "string"
    )
      return undefined;
    return v;
  } catch {
    return undefined;
  }
}
