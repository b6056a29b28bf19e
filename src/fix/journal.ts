/**
 * The journal: written before a transaction's first write and removed after its audit entry, so a
 * process killed in between leaves a record the next transaction (or server start) can act on.
 */
import fs from "node:fs/promises";
import path from "node:path";
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

export async function writeJournal(paths: CachePaths, journal: Journal): Promise<void> {
  const file = journalFile(paths, journal.run_id);
  const tmp = `${file}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(journal), { mode: 0o600 });
  const handle = await fs.open(tmp, "r");
  await handle.sync().finally(() => handle.close());
  await fs.rename(tmp, file);
}

export async function removeJournal(paths: CachePaths, runId: string): Promise<void> {
  await fs.rm(journalFile(paths, runId), { force: true });
}

/**
 * Every journal left in the cache (unreadable ones are reported with phase "applying" and no files). The run
 * id is the file's name, whatever the content says, and files not named after a run id are ignored.
 */
export async function listJournals(paths: CachePaths): Promise<Journal[]> {
  const names = await fs.readdir(paths.journal).catch(() => [] as string[]);
  const out: Journal[] = [];
  for (const name of names.filter((n) => n.endsWith(".json")).sort()) {
    const runId = name.slice(0, -".json".length);
    if (!isRunId(runId)) continue;
    try {
      const journal = JSON.parse(await fs.readFile(path.join(paths.journal, name), "utf8")) as Journal;
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
