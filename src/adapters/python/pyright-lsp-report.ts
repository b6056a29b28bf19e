/**
 * Pure pieces of the warm pyright: the Python files a project has (with what tells an edit), what
 * changed between two looks at them, and the `pyright --outputjson` report rebuilt from the language
 * server's per-file diagnostics, so that a warm check is parsed exactly as a cold one.
 */
import fs from "node:fs";
import path from "node:path";
import { dirEntries } from "../../paths/dir-entries.js";

/** Folders never walked: pyright's own automatic excludes, and virtualenvs (whose files it skips). */
const SKIP_DIRS = new Set(["node_modules", "__pycache__", "venv", "site-packages"]);
/** Past this many files a warm pyright would pull diagnostics for part of the project only: it runs cold. */
export const MAX_PYTHON_FILES = 20_000;

/**
 * Every .py/.pyi file under `dirs` with its size, mtime and inode (what changes when it is written),
 * skipping dot folders, `__pycache__`, `node_modules` and virtualenvs (folders with a pyvenv.cfg); at
 * most `limit` of them.
 */
export function pythonFileStates(dirs: readonly string[], limit = MAX_PYTHON_FILES): Map<string, string> {
  const states = new Map<string, string>();
  const walk = (dir: string) => {
    const entries = dirEntries(dir);
    if (entries.some((e) => e.name === "pyvenv.cfg" && e.isFile())) return;
    for (const e of entries) {
      if (states.size >= limit) return;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!e.name.startsWith(".") && !SKIP_DIRS.has(e.name) && !e.name.startsWith("__editable__.")) walk(p);
      } else if (e.isFile() && /\.pyi?$/.test(e.name)) {
        try {
          const st = fs.statSync(p);
          states.set(p, `${st.size}:${st.mtimeMs}:${st.ino}`);
        } catch {
          // Removed while walking: it is not there.
        }
      }
    }
  };
  for (const d of dirs) walk(d);
  return states;
}

export interface TreeChanges {
  changed: string[];
  added: string[];
  removed: string[];
}

/** What differs between two looks at the same tree. */
export function treeChanges(
  before: ReadonlyMap<string, string>,
  now: ReadonlyMap<string, string>,
): TreeChanges {
  const changed: string[] = [];
  const added: string[] = [];
  for (const [file, state] of now) {
    const was = before.get(file);
    if (was === undefined) added.push(file);
    else if (was !== state) changed.push(file);
  }
  const removed = [...before.keys()].filter((f) => !now.has(f));
  return { changed, added, removed };
}

/** A diagnostic as the language server sends it (LSP: 0-based range; severity 1 error ... 4 hint). */
export interface LspDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity?: number;
  code?: string | number;
  message: string;
}

const CLI_SEVERITY: Record<number, string> = { 1: "error", 2: "warning", 3: "information" };

/**
 * The `--outputjson` report pyright's CLI would print for these files: hints (greyed-out unused or
 * unreachable code, which the CLI never prints) are dropped; files in path order, diagnostics in
 * position order, as the CLI lists them.
 */
export function reportFromLsp(
  byFile: ReadonlyMap<string, readonly LspDiagnostic[]>,
  version: string,
  elapsedMs: number,
): string {
  const generalDiagnostics: object[] = [];
  const counts = { error: 0, warning: 0, information: 0 };
  for (const file of [...byFile.keys()].sort()) {
    const diagnostics = [...(byFile.get(file) ?? [])]
      .filter((d) => CLI_SEVERITY[d.severity ?? 1] !== undefined)
      .sort(
        (a, b) =>
          a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character,
      );
    for (const d of diagnostics) {
      const severity = CLI_SEVERITY[d.severity ?? 1] as keyof typeof counts;
      counts[severity]++;
      generalDiagnostics.push({
        file,
        severity,
        message: d.message,
        range: d.range,
        ...(d.code !== undefined && d.code !== "" ? { rule: String(d.code) } : {}),
      });
    }
  }
  return JSON.stringify({
    version,
    time: String(Date.now()),
    generalDiagnostics,
    summary: {
      filesAnalyzed: byFile.size,
      errorCount: counts.error,
      warningCount: counts.warning,
      informationCount: counts.information,
      timeInSec: Math.round(elapsedMs) / 1000,
    },
  });
}
