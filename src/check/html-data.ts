/**
 * The `check --html` page's data: the findings as compact arrays, the rules and files they name, and the
 * source lines around each finding, read inside the checked roots without following a link and capped in
 * bytes.
 */
import path from "node:path";
import { isWithin } from "../paths/allowlist.js";
import { readFileIn } from "../paths/safe-fs.js";
import type { CheckOutcome, Level } from "./outcome.js";

/** Lines shown above and below a finding's line. */
const CONTEXT_LINES = 2;
/** Source files read for snippets: each at most this size, and this much in all. */
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;
const MAX_SNIPPET_BYTES = 16 * 1024 * 1024;
const MAX_LINE_CHARS = 400;

export const LEVELS: Level[] = ["error", "warning", "note"];

/** The page's data: what its script renders. Findings are arrays to keep 20,000 of them small. */
export interface PageData {
  files: string[];
  rules: { tool: string; rule: string; docs?: string }[];
  /** [file index, line, column, level index, rule index, message] */
  findings: [number, number, number, number, number, string][];
  /** Per file index: windows of source lines, [first line number, lines]. */
  snippets: Record<number, [number, string[]][]>;
}

/** The page's data from the outcomes; `source` gives a file's text (or undefined) for its snippets. */
export function pageData(
  outcomes: readonly CheckOutcome[],
  source: (file: string) => string | undefined,
): PageData {
  const files: string[] = [];
  const fileIndex = new Map<string, number>();
  const rules: PageData["rules"] = [];
  const ruleIndex = new Map<string, number>();
  const findings: PageData["findings"] = [];
  const linesByFile = new Map<number, Set<number>>();
  for (const o of outcomes)
    for (const f of o.findings) {
      let fi = fileIndex.get(f.file);
      if (fi === undefined) {
        fi = files.push(f.file) - 1;
        fileIndex.set(f.file, fi);
      }
      const key = `${f.tool}\0${f.rule_id}`;
      let ri = ruleIndex.get(key);
      if (ri === undefined) {
        ri = rules.push({ tool: f.tool, rule: f.rule_id, ...(f.docs_url ? { docs: f.docs_url } : {}) }) - 1;
        ruleIndex.set(key, ri);
      }
      findings.push([fi, f.line, f.column, LEVELS.indexOf(f.level), ri, f.message]);
      if (f.line > 0) {
        const wanted = linesByFile.get(fi) ?? new Set<number>();
        wanted.add(f.line);
        linesByFile.set(fi, wanted);
      }
    }
  findings.sort((a, b) => files[a[0]]!.localeCompare(files[b[0]]!) || a[1] - b[1] || a[2] - b[2]);
  const snippets: PageData["snippets"] = {};
  let budget = MAX_SNIPPET_BYTES;
  for (const [fi, wanted] of linesByFile) {
    if (budget <= 0) break;
    const text = files[fi] ? source(files[fi] as string) : undefined;
    if (text === undefined) continue;
    const lines = text.split(/\r?\n/);
    const windows: [number, string[]][] = [];
    let last = 0;
    for (const line of [...wanted].sort((a, b) => a - b)) {
      const from = Math.max(1, line - CONTEXT_LINES, last + 1);
      const to = Math.min(lines.length, line + CONTEXT_LINES);
      if (from > to) continue;
      const shown = lines
        .slice(from - 1, to)
        .map((l) => (l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}…` : l));
      const prev = windows.at(-1);
      if (prev && prev[0] + prev[1].length === from) prev[1].push(...shown);
      else windows.push([from, shown]);
      for (const l of shown) budget -= l.length + 1;
      last = to;
    }
    snippets[fi] = windows;
  }
  return { files, rules, findings, snippets };
}

/** The text of a finding's file, read inside one of the roots without following a link (else undefined). */
export function sourceReader(roots: readonly string[], cwd: string): (file: string) => string | undefined {
  return (file) => {
    const absolute = path.resolve(cwd, file);
    const root = roots.find((r) => isWithin(r, absolute) && r !== absolute);
    if (!root) return undefined;
    try {
      const read = readFileIn(root, absolute, "refuse");
      if (!read || read.content.length > MAX_SOURCE_BYTES || read.content.subarray(0, 8000).includes(0))
        return undefined;
      return read.content.toString("utf8");
    } catch {
      return undefined;
    }
  };
}
