/**
 * The transaction audit of one project: `.mcp-cache/audit.jsonl`, one JSON object per transaction
 * outcome. Beyond `maxBytes` the file is renamed to an `audit.jsonl.<timestamp>.jsonl` sidecar.
 * Appends happen under the root lock (locked-out entries are single O_APPEND writes). Every file is reached
 * from the project root without following links, and appended to only when it is a regular file with one name.
 */
import type { Dirent } from "node:fs";
import path from "node:path";
import { fromAuditLine, seedAuditFields } from "./seed-interop.js";
import { appendFileIn, listDirIn, lstatIn, readFileIn, renameIn } from "../paths/safe-fs.js";

export const TX_RESULTS = [
  "commit",
  "commit-no-snapshot",
  "commit-partial-snapshot",
  "rollback",
  "error",
  "locked-out",
] as const;
export type TxResult = (typeof TX_RESULTS)[number];

export interface TxAuditEntry {
  timestamp: string;
  run_id: string;
  tool: string;
  root: string;
  result: TxResult;
  /** Why: the failed check of a rollback, the error message, the recovery that wrote it. */
  reason?: string;
  /** Files the transaction wrote, relative to the root. */
  files_written: string[];
  lock_wait_ms: number;
  lock_hold_ms: number;
  [key: string]: unknown;
}

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
      if (size > 0 && size + Buffer.byteLength(line) > this.maxBytes)
        renameIn(
          this.root,
          this.file,
          `${path.basename(this.file)}.${full.timestamp.replace(/[:.]/g, "-")}.jsonl`,
        );
    }
    appendFileIn(this.root, this.file, line, 0o600);
    return full;
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

  /** Matching entries, oldest first; the newest `limit` when a limit is given. Corrupt lines are skipped. */
  async read(query: AuditQuery = {}): Promise<TxAuditEntry[]> {
    const since = query.since ? Date.parse(query.since) : undefined;
    const out: TxAuditEntry[] = [];
    for (const file of await this.files()) {
      let text = "";
      try {
        text = readFileIn(this.root, file, "refuse")?.content.toString("utf8") ?? "";
      } catch {
        // Gone or swapped for a link since it was listed: not read.
      }
      for (const line of text.split("\n")) {
        const e = parseEntry(line);
        if (!e) continue;
        if (query.tool !== undefined && e.tool !== query.tool) continue;
        if (query.result !== undefined && e.result !== query.result) continue;
        if (since !== undefined && !(Date.parse(e.timestamp) >= since)) continue;
        out.push(e);
      }
    }
    return query.limit !== undefined ? out.slice(-query.limit) : out;
  }
}

function parseEntry(line: string): TxAuditEntry | undefined {
  if (!line.trim()) return undefined;
  try {
    const v = JSON.parse(line) as unknown;
    // Ours, or an entry the original seed 001 server wrote (see seed-interop.ts).
    return typeof v === "object" && v !== null && !Array.isArray(v)
      ? fromAuditLine(v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
