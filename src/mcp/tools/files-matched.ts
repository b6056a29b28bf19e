/** A `files` filter that matches nothing is refused, so that a typo does not pass as "no problems". */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { VENDORED_DIR_NAMES } from "../../adapters/python/tree-excludes.js";

/** Files looked at before giving up the search (the filter is then taken as matching). */
const MAX_FILES_SCANNED = 200_000;

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
  let scanned = 0;
  const found = (dir: string): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const e of entries) {
      if (++scanned > MAX_FILES_SCANNED) return true;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!VENDORED_DIR_NAMES.has(e.name) && found(abs)) return true;
      } else if (e.isFile() && matches(abs)) return true;
    }
    return false;
  };
  const start = fs.statSync(base).isFile() ? path.dirname(base) : base;
  if (!found(start))
    throw new ToolError(
      "invalid_input",
      `argument "files" matched no file under ${start} (${tool}): ${patterns.join(", ")}`,
    );
}

/** Files listed at most for a `files` scope (a scope that large is the whole project anyway). */
const MAX_MATCHED_FILES = 50_000;

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
  const out: string[] = [];
  let scanned = 0;
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++scanned > MAX_FILES_SCANNED || out.length >= MAX_MATCHED_FILES) return;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!VENDORED_DIR_NAMES.has(e.name)) walk(abs);
      } else if (e.isFile() && matches(abs)) out.push(abs);
    }
  };
  const start = fs.statSync(base).isFile() ? path.dirname(base) : base;
  walk(start);
  if (out.length === 0)
    throw new ToolError(
      "invalid_input",
      `argument "files" matched no file under ${start} (${tool}): ${patterns.join(", ")}`,
    );
  return out.sort();
}
