/**
 * The paths `check` plans: a path inside another one given is left to that one's checks, which report on
 * it already (`check pkgs/b pkgs/b/src/b/m.py` listed each of m.py's findings twice). A script named inside
 * one (a file with no dot, known by its `#!` line) is kept: the tools' walks skip it, a named run takes it.
 * Pure.
 */
import path from "node:path";
import { mayBeScript } from "../adapters/script-files.js";

const inside = (outer: string, p: string) =>
  p.startsWith(outer.endsWith(path.sep) ? outer : outer + path.sep);

/** `paths` (absolute) without repeats and without those inside another, scripts apart; in the order given. */
export function outermostPaths(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter((p) => mayBeScript(p) || !unique.some((q) => q !== p && inside(q, p)));
}
