/**
 * Reading the project's own files that a command runs (a script, a Makefile, package.json, a justfile), for
 * the walk to judge what they hold: only inside the allowed roots (a link is followed only when its real
 * path stays inside), regular files, size-capped, text; a budget per line bounds the files and bytes read.
 * Anything else is a reason, which the caller turns into an undecided command, never a silent allow.
 */
import fs from "node:fs";
import { isWithin } from "../../paths/allowlist.js";
import { readFileIn } from "../../paths/safe-read.js";

/** Largest file read (a bigger one is undecided). */
export const MAX_PROJECT_FILE_BYTES = 256 * 1024;
/** Files and bytes read for one command line (scripts that run scripts included). */
const MAX_FILES_PER_LINE = 64;
const MAX_BYTES_PER_LINE = 2 * 1024 * 1024;

export type ProjectRead = { text: string; file: string } | { why: string; missing?: boolean };

/** Reads one file for one line's walk (its budget shared by every read of that line). */
export type ProjectReader = (file: string) => ProjectRead;

/** A reader over the allowed roots (each made canonical once). */
export function projectReader(roots: readonly string[]): ProjectReader {
  const canonical = roots.flatMap((r) => {
    try {
      return [fs.realpathSync(r)];
    } catch {
      return [];
    }
  });
  let files = 0;
  let bytes = 0;
  return (file) => {
    let real: string;
    try {
      real = fs.realpathSync(file);
    } catch {
      return { why: `${file} does not exist (the line may make it before it runs)`, missing: true };
    }
    const root = canonical.find((r) => isWithin(r, real));
    if (root === undefined) return { why: `${file} is outside the allowed paths, so it is not read` };
    let size: number;
    try {
      const st = fs.statSync(real);
      if (!st.isFile()) return { why: `${file} is not a regular file` };
      size = st.size;
    } catch (err) {
      return { why: `${file} cannot be read (${(err as Error).message})` };
    }
    if (size > MAX_PROJECT_FILE_BYTES)
      return { why: `${file} is ${size} bytes, over the ${MAX_PROJECT_FILE_BYTES} that are read` };
    if (++files > MAX_FILES_PER_LINE || (bytes += size) > MAX_BYTES_PER_LINE)
      return { why: `the line runs more project files than are read (${MAX_FILES_PER_LINE} files, 2 MiB)` };
    let content: Buffer | undefined;
    try {
      content = readFileIn(root, real)?.content;
    } catch (err) {
      return { why: `${file} cannot be read (${(err as Error).message})` };
    }
    if (content === undefined) return { why: `${file} does not exist`, missing: true };
    // A NUL byte: a compiled program, not text a shell or an interpreter reads.
    if (content.subarray(0, 8192).includes(0))
      return { why: `${file} is a binary, whose commands cannot be read` };
    return { text: content.toString("utf8"), file: real };
  };
}
