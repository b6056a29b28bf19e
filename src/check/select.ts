/**
 * --only / --skip: a name matches a check by its id (ruff, ty, eslint...), its id without `-format`
 * (so `ruff` is both ruff's lint and its format check), its kind (format, lint, types, links) or its
 * language (python, js, go, rust, ruby, markdown).
 */
import type { PlannedCheck } from "./detect.js";

export function matches(check: PlannedCheck, name: string): boolean {
  return check.id === name || check.id === `${name}-format` || check.kind === name || check.language === name;
}

/** The names that match the Markdown link check and no other check (its id, kind and language). */
const LINK_CHECK_NAMES = new Set(["markdown-links", "links", "markdown"]);

/**
 * Whether --only selects nothing but the Markdown link check: the projects below the paths need not be
 * searched for (on rust-lang/book, 1,200 folders of listings walked for crates no check would run).
 */
export function selectsLinksOnly(only: readonly string[]): boolean {
  return only.length > 0 && only.every((n) => LINK_CHECK_NAMES.has(n));
}

export interface Selection {
  selected: PlannedCheck[];
  /** --only names that matched no detected check (a usage error). */
  unmatched: string[];
}

/** The checks left after --only (keep those matching a name) and --skip (drop those matching one). */
export function selectChecks(
  planned: readonly PlannedCheck[],
  only: readonly string[],
  skip: readonly string[],
): Selection {
  const selected = planned.filter(
    (c) => (only.length === 0 || only.some((n) => matches(c, n))) && !skip.some((n) => matches(c, n)),
  );
  const unmatched = only.filter((n) => !planned.some((c) => matches(c, n)));
  return { selected, unmatched };
}
