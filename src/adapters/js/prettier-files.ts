/**
 * Whether Prettier's CLI formats a file of a folder it walks (`prettier --check .`): a file whose extension or
 * name a language of this Prettier has, or a file with no dot in its name whose `#!` line names one of their
 * interpreters (tj/commander.js: `examples/pizza`, `#!/usr/bin/env node`, 15 such files that were never checked).
 * Used by the worker's walk and the result cache's, which must agree.
 */
import fs from "node:fs";
import path from "node:path";

/** The interpreter of a `#!` line, read as Prettier reads it (its getInterpreter). Pure. */
export function shebangInterpreter(firstLine: string): string | undefined {
  return (
    /^#!\/(?:usr\/)?bin\/env\s+(\S+)/.exec(firstLine)?.[1] ??
    /^#!\/(?:usr\/(?:local\/)?)?bin\/(\S+)/.exec(firstLine)?.[1]
  );
}

/** Bytes of a file read for its `#!` line at most. */
const FIRST_LINE_BYTES = 256;

/** A file's first line (up to FIRST_LINE_BYTES), "" when unreadable. */
function firstLineOf(file: string): string {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const buffer = Buffer.alloc(FIRST_LINE_BYTES);
    const n = fs.readSync(fd, buffer, 0, FIRST_LINE_BYTES, 0);
    return buffer.subarray(0, n).toString("utf8").split("\n")[0] ?? "";
  } catch {
    return "";
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export interface PrettierKinds {
  extensions: readonly string[];
  filenames: ReadonlySet<string>;
  interpreters: readonly string[];
}

/** Whether Prettier's walk takes `file` (its first line is read only for a name without a dot). */
export function prettierTakes(file: string, kinds: PrettierKinds): boolean {
  const name = path.basename(file);
  if (kinds.extensions.includes(path.extname(file)) || kinds.filenames.has(name)) return true;
  if (name.includes(".") || kinds.interpreters.length === 0) return false;
  const interpreter = shebangInterpreter(firstLineOf(file));
  return interpreter !== undefined && kinds.interpreters.includes(interpreter);
}
