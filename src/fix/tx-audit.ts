/**
 * The transaction audit of one project: `.mcp-cache/audit.jsonl`, one JSON object per transaction
 * outcome. Beyond `maxBytes` the file is renamed to an `audit.jsonl.<timestamp>.jsonl` sidecar.
 * Appends happen under the root lock (locked-out entries are single O_APPEND writes). Every file is reached
 * from the project root without following links, and appended to only when it is a regular file with one name.
 * Only the newest KEEP_ROTATED sidecars are kept, and reads go from the end of the newest file back,
 * keeping at most MAX_READ_ENTRIES entries, so a long history costs neither disk nor memory without end.
 */
import type { Dirent } from "node:fs";
import path from "node:path";
import { fromAuditLine, seedAuditFields } from "./seed-interop.js";
import { appendFileIn, listDirIn, lstatIn, removeFileIn, renameIn } from "../paths/safe-fs.js";
import { newestJsonEntries } from "../engine/lines-from-end.js";

/** Rotated audit files kept beside the live one; older ones are deleted at rotation. */
export const KEEP_ROTATED = 5;
/** The most entries one read returns (the newest): rollback and recovery look at recent transactions. */
export const MAX_READ_ENTRIES = 10_000;

import type { TxAuditEntry } from "./tx-audit-entry.js";

export { TX_RESULTS, type TxAuditEntry, type TxResult } from "./tx-audit-entry.js";

export interface AuditQuery {
  tool?: string;
  /** ISO timestamp: only entries at or after it. */
  since?: string;
  result?: string;
  limit?: number;
}

export class TxAudit {
  /** The project root: `file` is `<root>/.mcp-cache/audit.jsonl`. */
  private readonly root: string;

  constructor(
    readonly file: string,
    private readonly maxBytes: number,
  ) {
    this.root = path.dirname(path.dirname(file));
  }

  async append(entry: Omit<TxAuditEntry, "timestamp">, rotate = true): Promise<TxAuditEntry> {
    const full = { timestamp: new Date().toISOString(), ...entry } as TxAuditEntry;
    const line = JSON.stringify({ ...full, ...seedAuditFields(full) }) + "\n";
    if (rotate) {
      const size = lstatIn(this.root, this.file)?.size ?? 0;
      if (size > 0 && size + Buffer.byteLength(line) > this.maxBytes) {
        renameIn(
          this.root,
          this.file,
          `${path.basename(this.file)}.${full.timestamp.replace(/[:.]/g, "-")}.jsonl`,
        );
        this.pruneRotated();
      }
    }
    appendFileIn(this.root, this.file, line, 0o600);
    return full;
  }

  /** Deletes rotated files beyond the newest KEEP_ROTATED (reached without following links). */
  private pruneRotated(): void {
    const dir = path.dirname(this.file);
    const base = path.basename(this.file);
    let names: string[];
    try {
      names = listDirIn(this.root, dir).map((d) => d.name);
    } catch {
      return;
    }
    const sidecars = names.filter((n) => n.startsWith(`${base}.`) && n.endsWith(".jsonl")).sort();
    for (const name of sidecars.slice(0, Math.max(0, sidecars.length - KEEP_ROTATED)))
      try {
        removeFileIn(this.root, path.join(dir, name));
      } catch {
        // Already gone.
      }
  }

  /**
   * The audit files, oldest first: rotated sidecars by name (their timestamps), then the live file.
   * Only regular files: a symbolic link could point anywhere outside the project.
   */
  async files(): Promise<string[]> {
    const dir = path.dirname(this.file);
    const base = path.basename(this.file);
    let entries: Dirent[];
    try {
      entries = listDirIn(this.root, dir);
    } catch {
      return [];
    }
    const regular = entries.filter((d) => d.isFile()).map((d) => d.name);
    const sidecars = regular.filter((n) => n.startsWith(`${base}.`) && n.endsWith(".jsonl")).sort();
    return [...sidecars, ...(regular.includes(base) ? [base] : [])].map((n) => path.join(dir, n));
  }

  /**
   * Matching entries, oldest first: the newest `limit` of them (at most MAX_READ_ENTRIES). Files are read
   * from the end, newest first, so only what is returned is held. Corrupt lines are skipped.
   */
  async read(query: AuditQuery = {}): Promise<TxAuditEntry[]> {
    const since = query.since ? Date.parse(query.since) : undefined;
    const limit = Math.min(query.limit ?? MAX_READ_ENTRIES, MAX_READ_ENTRIES);
    const matches = (e: TxAuditEntry) =>
      (query.tool === undefined || e.tool === query.tool) &&
      (query.result === undefined || e.result === query.result) &&
      (since === undefined || Date.parse(e.timestamp) >= since);
    return newestJsonEntries(
      (await this.files()).reverse(),
      limit,
      (value) => {
        const e = txEntryOf(value);
        return e && matches(e) ? e : undefined;
      },
      { noFollow: true },
    );
  }
}

/** A line's value as a transaction entry: ours, or one the original seed 001 server wrote (see seed-interop.ts). */
function txEntryOf(v: unknown): TxAuditEntry | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? fromAuditLine(v as Record<string, unknown>)
    : undefined;
}
