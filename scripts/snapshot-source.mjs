// The JavaScript a V8 start-up snapshot is built from (scripts/bundle-cli.mjs, scripts/bundle-hook.mjs). A
// snapshot keeps its script's whole source in the heap it deserializes on every start: comments and
// indentation were a third of it, and one non-ASCII character anywhere (a comment's "’", a regex's "µ")
// makes V8 keep all of it two bytes per character. Without them the command line's blob went from 24 to
// 15 MB and its start from ~115 to ~95 ms (docs/check.md).
import fs from "node:fs";

/** esbuild options for a snapshot's bundle: no comments or indentation (names and statements unchanged). */
export const SNAPSHOT_SOURCE = { minifyWhitespace: true };

/**
 * Rewrites `file` with every non-ASCII character as \uXXXX escapes (UTF-16 units): what is left of them
 * after minifying is in string and regex literals, where an escape means the same character.
 */
export function asciiOnly(file) {
  const text = fs.readFileSync(file, "utf8");
  // Without the u flag each UTF-16 unit is matched alone: a surrogate pair becomes two escapes, as V8 reads it.
  const ascii = text.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  if (ascii !== text) fs.writeFileSync(file, ascii);
}
