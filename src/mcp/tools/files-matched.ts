/** A `files` filter that matches nothing is refused, so that a typo does not pass as "no problems". */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { dirEntries } from "../../paths/dir-entries.js";
import { VENDORED_DIR_NAMES } from "../../adapters/python/tree-excludes.js";

/** Files looked at before giving up the search (the filter is then taken as matching). */
const MAX_FILES_SCANNED = 200_000;
/** Files listed at most for a `files` scope (a scope that large is the whole project anyway). */
const MAX_MATCHED_FILES = 50_000;

/**
 * Up to `limit` files under the folder of `base` that `matches` accepts, in walk order (vendored and VCS
 * folders not searched, links not followed), and the folder searched; `cut` when the walk gave up after
 * MAX_FILES_SCANNED entries. Both callers share this one walk so that they agree on what a filter matches.
 */
function scanMatches(
  base: string,
  matches: (file: string) => boolean,
  limit: number,
): { files: string[]; cut: boolean; start: string } {
  const files: string[] = [];
  let scanned = 0;
  let cut = false;
  const walk = (dir: string): void => {
    for (const e of dirEntries(dir)) {
      if (cut || files.length >= limit) return;
      if (++scanned > MAX_FILES_SCANNED) {
        cut = true;
        return;
      }
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!VENDORED_DIR_NAMES.has(e.name)) walk(abs);
      } else if (e.isFile() && matches(abs)) files.push(abs);
    }
  };
  const start = fs.statSync(base).isFile() ? path.dirname(base) : base;
  walk(start);
  return { files, cut, start };
}

/** The invalid_input a `files` filter that matched nothing under `start` gets, naming the tool. */
function noMatch(start: string, patterns: readonly string[], tool: string): ToolError {
  return new ToolError(
    "invalid_input",
    `argument "files" matched no file under ${start} (${tool}): ${patterns.join(", ")}`,
  );
}

/**
 * Throws invalid_input naming the argument and the tool when `matches` accepts no file under `base`
 * (vendored and VCS folders not searched, symbolic links not followed).
 */
export function requireFilesMatch(
  base: string,
  matches: (file: string) => boolean,
  patterns: readonly string[],
  tool: string,
): void {
  const scan = scanMatches(base, matches, 1);
  if (scan.files.length === 0 && !scan.cut) throw noMatch(scan.start, patterns, tool);
}

/**
 * The files under `base` that `matches` accepts (vendored and VCS folders not searched, links not
 * followed), sorted; none is invalid_input naming the argument and the tool, as requireFilesMatch says.
 */
export function matchedFiles(
  base: string,
  matches: (file: string) => boolean,
  patterns: readonly string[],
  tool: string,
): string[] {
  const scan = scanMatches(base, matches, MAX_MATCHED_FILES);
  if (scan.files.length === 0) throw noMatch(scan.start, patterns, tool);
  return scan.files.sort();
}
