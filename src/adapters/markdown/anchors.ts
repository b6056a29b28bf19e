/**
 * Anchors a Markdown file offers (GitHub heading slugs, explicit HTML ids) and whether a link
 * fragment finds one of them, GitHub's `#L10` / `#L10-L20` line anchors included.
 */

import { closest, distance } from "fastest-levenshtein";

/** What one file offers to `file#fragment` links. */
export interface AnchorIndex {
  /** Anchor names, lower-cased unless the check is case-sensitive (GitHub matches case-insensitively). */
  anchors: ReadonlySet<string>;
  /** Number of lines, for line anchors. */
  lineCount: number;
}

const LINE_ANCHOR = /^L(\d+)(?:-L(\d+))?$/;

/** Parses GitHub's line anchors: `L10` → [10, 10], `L10-L20` → [10, 20]; anything else → undefined. */
export function parseLineAnchor(fragment: string): [number, number] | undefined {
  const m = LINE_ANCHOR.exec(fragment);
  if (!m) return undefined;
  const start = Number(m[1]);
  return [start, m[2] === undefined ? start : Number(m[2])];
}

/** Decodes a fragment as written in a link (`caf%C3%A9` → `café`); malformed escapes are kept as is. */
export function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

/** GitHub prefixes rendered ids with `user-content-`; links may use either form. */
const GITHUB_ID_PREFIX = "user-content-";

/**
 * Checks a fragment (without `#`, percent-decoded) against a file's anchors.
 * Returns undefined when it resolves, otherwise why not.
 * `headingsKnown` is false for files that are not Markdown: only line anchors can be verified there.
 * `where` names the target file in messages (absent for the linking file itself).
 */
export function anchorProblem(
  fragment: string,
  index: AnchorIndex,
  options: { headingsKnown?: boolean; where?: string; caseSensitive?: boolean } = {},
): string | undefined {
  const { headingsKnown = true, where, caseSensitive = false } = options;
  if (fragment === "" || fragment.toLowerCase() === "top") return undefined;
  const lines = parseLineAnchor(fragment);
  if (lines) {
    const [start, end] = lines;
    if (start < 1 || end < start) return `invalid line anchor #${fragment}`;
    if (end > index.lineCount)
      return `line ${end} is past the end of ${where ?? "the file"} (${index.lineCount} line${index.lineCount === 1 ? "" : "s"})`;
    return undefined;
  }
  if (!headingsKnown) return undefined;
  let name = caseSensitive ? fragment : fragment.toLowerCase();
  if (name.startsWith(GITHUB_ID_PREFIX) && !index.anchors.has(name))
    name = name.slice(GITHUB_ID_PREFIX.length);
  return index.anchors.has(name) ? undefined : `anchor #${fragment} not found${where ? ` in ${where}` : ""}`;
}

/**
 * The anchor of `index` a missing fragment most likely meant: the nearest by edit distance (case
 * ignored), if it is near enough to be a typo (at most a third of the name, and at least 2 edits allowed).
 */
export function closestAnchor(fragment: string, index: AnchorIndex): string | undefined {
  if (index.anchors.size === 0) return undefined;
  const wanted = fragment.toLowerCase().replace(/^user-content-/, "");
  const candidates = [...index.anchors];
  const best = closest(
    wanted,
    candidates.map((a) => a.toLowerCase()),
  );
  const found = candidates.find((a) => a.toLowerCase() === best);
  if (found === undefined) return undefined;
  return distance(wanted, best) <= Math.max(2, Math.floor(wanted.length / 3)) ? found : undefined;
}
