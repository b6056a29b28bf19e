/**
 * Results as views over findings, built here only: seed 000's `issues` strings and counts, the
 * findings list, capped at a count with the full count kept, display paths and fingerprints filled in.
 */
import { readTextIn } from "../paths/safe-fs.js";
import type { DisplayPaths } from "./display-path.js";
import { assignFingerprints } from "./fingerprint.js";
import { countBySeverity, type Finding, type Severity } from "./model.js";

export const MAX_LISTED_FINDINGS = 500;

export interface ViewOptions {
  display: DisplayPaths;
  /** Most findings listed (default 500); counts stay full. */
  cap?: number;
  /** Compute fingerprints (they read the files named); off when only strings are shown. */
  fingerprints?: boolean;
}

export interface FindingsView {
  /** Every finding, `path` (and `fingerprint` when asked) set. */
  all: Finding[];
  /** The first `cap` of them. */
  listed: Finding[];
  count: number;
  capped: boolean;
  counts: Record<Severity, number>;
  /** seed 000's `file:line:col: CODE message` of the listed findings. */
  issues: string[];
}

/** seed 000's issue string; ruff's own `[*]` marks a fix it applies without `--unsafe-fixes`. */
export function issueString(f: Finding): string {
  const ruff = f.tool === "ruff";
  const marker = ruff && f.correction?.safe ? "[*] " : "";
  // ruff prints names that are not codes (invalid-syntax) with a colon.
  const rule = ruff && f.rule_id && !/^[A-Z]+[0-9]+$/.test(f.rule_id) ? `${f.rule_id}:` : f.rule_id;
  return `${f.path ?? f.file}:${f.line}:${f.column}: ${rule ? `${rule} ` : ""}${marker}${f.message}`;
}

/** A reader of files' lines, each file read once, only files inside the allowed roots. */
export function lineReader(display: DisplayPaths): (file: string) => string[] | undefined {
  const cache = new Map<string, string[] | undefined>();
  return (file) => {
    if (!cache.has(file)) {
      let lines: string[] | undefined;
      const root = display.allowedRoot(file);
      if (root)
        try {
          // Opened from its allowed root without following a link swapped in (paths/safe-fs.ts).
          lines = readTextIn(root, file).split(/\r?\n/);
        } catch {
          lines = undefined;
        }
      cache.set(file, lines);
    }
    return cache.get(file);
  };
}

export function findingsView(findings: readonly Finding[], options: ViewOptions): FindingsView {
  const cap = options.cap ?? MAX_LISTED_FINDINGS;
  const all = findings as Finding[];
  for (const f of all) f.path = options.display.show(f.file);
  if (options.fingerprints) assignFingerprints(all, options.display.show, lineReader(options.display));
  const listed = all.length > cap ? all.slice(0, cap) : all;
  return {
    all,
    listed,
    count: all.length,
    capped: all.length > cap,
    counts: countBySeverity(all),
    issues: listed.map(issueString),
  };
}
