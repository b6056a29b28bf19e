/** JSON-lines audit log with size-based rotation to `<file>.1`, created owner-only. */
import fs from "node:fs/promises";
import path from "node:path";

export interface AuditEntry {
  timestamp: string;
  operation: string;
  path: string | null;
  success: boolean;
  details: Record<string, unknown>;
}

export class AuditLog {
  /** Appends are chained so concurrent calls never interleave or race a rotation. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly maxBytes: number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  get rotatedFile(): string {
    return `${this.file}.1`;
  }

  /** Appends one entry; failures are reported to onError and never fail the tool call. */
  append(entry: Omit<AuditEntry, "timestamp"> & { timestamp?: string }): Promise<void> {
    const line = JSON.stringify({ timestamp: entry.timestamp ?? new Date().toISOString(), ...entry }) + "\n";
    this.queue = this.queue.then(() => this.write(line)).catch(this.onError);
    return this.queue;
  }

  private async write(line: string): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const size = await fs.stat(this.file).then(
      (s) => s.size,
      () => 0,
    );
    if (size > 0 && size + Buffer.byteLength(line) > this.maxBytes)
      await fs.rename(this.file, this.rotatedFile);
    await fs.appendFile(this.file, line, { mode: 0o600 });
  }

  /**
   * The most recent `limit` entries (oldest first), optionally of one operation, read across one rotation.
   * Missing files read as empty and corrupt lines are skipped.
   */
  async read(limit: number, filter: (e: AuditEntry) => boolean = () => true): Promise<AuditEntry[]> {
    await this.queue;
    const entries: AuditEntry[] = [];
    for (const file of [this.rotatedFile, this.file]) {
      const text = await fs.readFile(file, "utf8").catch(() => "");
      for (const line of text.split("\n")) {
        const entry = parseEntry(line);
        if (entry && filter(entry)) entries.push(entry);
      }
    }
    return entries.slice(-limit);
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
