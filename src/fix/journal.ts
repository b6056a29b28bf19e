/**
 * The journal: written before a transaction's first write and removed after its audit entry, so a
 * process killed in between leaves a record the next transaction (or server start) can act on. Beside it,
 * `<runId>.writes.jsonl` logs what the transaction wrote (path and sha256, before each write is renamed
 * into place, and after each writing step), so recovery restores only files that still hold those bytes.
 * Every file here is reached without following links (see safe-fs).
 */
import path from "node:path";
import { appendFileIn, listDirIn, readFileIn, removeFileIn, writeFileIn } from "../paths/safe-fs.js";
import type { CachePaths } from "./cache-dir.js";
import { checkRunId, isRunId } from "./snapshot.js";

export interface Journal {
  run_id: string;
  tool: string;
  pid: number;
  started: string;
  /** applying: files may be half written (undo); committing: the fix is final (finish the commit). */
  phase: "applying" | "committing";
  /** Whether a snapshot exists to undo with. */
  snapshot: boolean;
  /** Files the transaction may write, relative to the root. */
  files: string[];
}

function journalFile(paths: CachePaths, runId: string): string {
  return path.join(paths.journal, `${checkRunId(runId)}.json`);
}

function writesFile(paths: CachePaths, runId: string): string {
  return path.join(paths.journal, `${checkRunId(runId)}.writes.jsonl`);
}

export async function writeJournal(paths: CachePaths, journal: Journal): Promise<void> {
  writeFileIn(paths.root, journalFile(paths, journal.run_id), JSON.stringify(journal), {
    mode: 0o600,
    fsync: true,
    links: "refuse",
  });
}

export async function removeJournal(paths: CachePaths, runId: string): Promise<void> {
  removeFileIn(paths.root, journalFile(paths, runId));
  removeFileIn(paths.root, writesFile(paths, runId));
}

/** Logs that the transaction wrote (or is about to rename into place) `file` (relative) with this content hash. */
export function logWrite(paths: CachePaths, runId: string, file: string, sha256: string | null): void {
  appendFileIn(paths.root, writesFile(paths, runId), JSON.stringify({ path: file, sha256 }) + "\n");
}

/** Every content hash the run logged per file (relative path → hashes; null: it removed the file). */
export function readWrites(paths: CachePaths, runId: string): Map<string, Set<string | null>> {
  const out = new Map<string, Set<string | null>>();
  let text: string;
  try {
    text = readFileIn(paths.root, writesFile(paths, runId), "refuse")?.content.toString("utf8") ?? "";
  } catch {
    return out;
  }
  for (const line of text.split("\n")) {
    try {
      const { path: p, sha256 } = JSON.parse(line) as { path: unknown; sha256: unknown };
      if (typeof p !== "string" || (sha256 !== null && typeof sha256 !== "string")) continue;
      if (!out.has(p)) out.set(p, new Set());
      out.get(p)?.add(sha256);
    } catch {
      // A line cut short by a kill is no record.
    }
  }
  return out;
}

/**
 * Every journal left in the cache (unreadable ones, links included, are reported with phase "applying" and
 * no files). The run id is the file's name, whatever the content says, and files not named after a run id
 * are ignored.
 */
export async function listJournals(paths: CachePaths): Promise<Journal[]> {
  const names = listDirIn(paths.root, paths.journal).map((d) => d.name);
  const out: Journal[] = [];
  for (const name of names.filter((n) => n.endsWith(".json")).sort()) {
    const runId = name.slice(0, -".json".length);
    if (!isRunId(runId)) continue;
    try {
      const read = readFileIn(paths.root, path.join(paths.journal, name), "refuse");
      if (!read) continue;
      const journal = JSON.parse(read.content.toString("utf8")) as Journal;
      out.push({ ...journal, run_id: runId, files: Array.isArray(journal.files) ? journal.files : [] });
    } catch {
      out.push({
        run_id: runId,
        tool: "unknown",
        pid: 0,
        started: "",
        phase: "applying",
        snapshot: true,
        files: [],
      });
    }
  }
  return out;
}
