/**
 * Scripts known by their `#!` line, not their name (tj/commander.js: `examples/pizza`, `#!/usr/bin/env node`):
 * the language of a file with no dot in its name, from the interpreter its first line names. Each tool that
 * takes such a file run by hand takes it here too (project-languages.ts, check's detect.ts). Only the first
 * line is read (bounded), only of a regular file, never through a link.
 */
import fs from "node:fs";
import path from "node:path";

/** The languages a `#!` line can name (project-languages.ts's, which imports this module). */
export type ScriptLanguage = "javascript" | "typescript" | "python" | "ruby";

/** The interpreter of a `#!` line, read as Prettier reads it (its getInterpreter). Pure. */
export function shebangInterpreter(firstLine: string): string | undefined {
  return (
    /^#!\/(?:usr\/)?bin\/env\s+(\S+)/.exec(firstLine)?.[1] ??
    /^#!\/(?:usr\/(?:local\/)?)?bin\/(\S+)/.exec(firstLine)?.[1]
  );
}

/** Bytes of a file read for its `#!` line at most. */
const FIRST_LINE_BYTES = 256;

/**
 * A file's first line (up to FIRST_LINE_BYTES), "" when it is not a regular file (a link, a FIFO, a device:
 * opening a FIFO would block, a link may lead outside the allowed paths) or cannot be read.
 */
export function firstLineOf(file: string): string {
  let fd: number | undefined;
  try {
    // O_NONBLOCK: a FIFO put in the file's place after any check does not hang the open.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    if (!fs.fstatSync(fd).isFile()) return "";
    const buffer = Buffer.alloc(FIRST_LINE_BYTES);
    const n = fs.readSync(fd, buffer, 0, FIRST_LINE_BYTES, 0);
    return buffer.subarray(0, n).toString("utf8").split("\n")[0] ?? "";
  } catch {
    return "";
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The language of each interpreter: Prettier's JavaScript and TypeScript ones (its getSupportInfo, 3.x), the
 * Python ones, and RuboCop's RubyInterpreters (its AllCops default).
 */
const INTERPRETERS: Readonly<Record<string, ScriptLanguage>> = {
  ...Object.fromEntries(
    ["chakra", "d8", "gjs", "js", "node", "nodejs", "qjs", "rhino", "v8", "v8-shell", "zx"].map((i) => [
      i,
      "javascript",
    ]),
  ),
  ...Object.fromEntries(["bun", "deno", "ts-node", "tsx"].map((i) => [i, "typescript"])),
  ...Object.fromEntries(["python", "python2", "python3", "pypy", "pypy3"].map((i) => [i, "python"])),
  ...Object.fromEntries(["ruby", "macruby", "rake", "jruby", "rbx"].map((i) => [i, "ruby"])),
};

/**
 * The language an interpreter runs. A version after a Python or Ruby one's name is left out (`python3.12`,
 * `ruby3.3`: RuboCop matches its interpreters anywhere in the line); Prettier takes its own names only. Pure.
 */
export function interpreterLanguage(interpreter: string): ScriptLanguage | undefined {
  const exact = INTERPRETERS[interpreter];
  if (exact) return exact;
  const versioned = INTERPRETERS[interpreter.replace(/(?<=[a-z])\d+(?:\.\d+)*$/, "")];
  return versioned === "python" || versioned === "ruby" ? versioned : undefined;
}

/** Whether `file` is absolute and reached through no link (nor `.`, `..`). */
function isCanonical(file: string): boolean {
  try {
    return path.isAbsolute(file) && fs.realpathSync.native(file) === file;
  } catch {
    return false;
  }
}

/** Whether a file's name leaves its language to its `#!` line (no dot in it, as Prettier has it). Pure. */
export function mayBeScript(file: string): boolean {
  return !path.basename(file).includes(".");
}

/**
 * The language of a script by its `#!` line (its first line is read only when its name has no dot). A path
 * with a link on the way (a folder named through a link, which may lead outside the allowed paths) is not
 * read: the paths the tools and check name are canonical.
 */
export function scriptLanguage(file: string): ScriptLanguage | undefined {
  if (!mayBeScript(file) || !isCanonical(file)) return undefined;
  const interpreter = shebangInterpreter(firstLineOf(file));
  return interpreter === undefined ? undefined : interpreterLanguage(interpreter);
}
