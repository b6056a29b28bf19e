/**
 * "Did you mean": for a link to a missing file, the existing file of the same directory it most likely
 * meant. Pure: given the missing name and the directory's entries.
 */
import path from "node:path";
import { distance } from "fastest-levenshtein";
import { MARKDOWN_EXTENSIONS } from "./files.js";

const HTML_EXTENSIONS = new Set([".html", ".htm"]);

/**
 * In order: the Markdown source of an `.html` page (`intro.html` → `intro.md`), the same name in
 * another case, the name with a Markdown extension added (`intro` → `intro.md`), then a name one edit
 * or one swap of neighbouring letters away (case ignored). Undefined when nothing is that close.
 */
export function suggestFileName(missing: string, entries: readonly string[]): string | undefined {
  const lower = missing.toLowerCase();
  const ext = path.extname(lower);
  const stem = lower.slice(0, lower.length - ext.length);
  const byLower = new Map(entries.map((e) => [e.toLowerCase(), e]));
  if (HTML_EXTENSIONS.has(ext))
    for (const md of MARKDOWN_EXTENSIONS) {
      const hit = byLower.get(stem + md);
      if (hit) return hit;
    }
  const sameName = byLower.get(lower);
  if (sameName) return sameName;
  if (ext === "")
    for (const md of MARKDOWN_EXTENSIONS) {
      const hit = byLower.get(lower + md);
      if (hit) return hit;
    }
  let best: string | undefined;
  for (const [l, entry] of byLower)
    if ((distance(lower, l) === 1 || isTransposition(lower, l)) && (best === undefined || entry < best))
      best = entry;
  return best;
}

/** Two neighbouring letters swapped (`giude` / `guide`): one slip of the fingers. */
function isTransposition(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i < a.length - 1 && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/** The link with its last path segment replaced by `name` (query and fragment kept). */
export function withFileName(url: string, name: string): string {
  const cut = url.search(/[?#]/);
  const pathPart = cut === -1 ? url : url.slice(0, cut);
  const rest = cut === -1 ? "" : url.slice(cut);
  const slash = pathPart.lastIndexOf("/");
  return `${pathPart.slice(0, slash + 1)}${encodeURI(name)}${rest}`;
}

/** The link with its fragment replaced by `anchor`. */
export function withFragment(url: string, anchor: string): string {
  const hash = url.indexOf("#");
  return `${hash === -1 ? url : url.slice(0, hash)}#${anchor}`;
}
