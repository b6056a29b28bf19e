/**
 * A `.git` file and a git dir's `commondir` and `gitdir` files, read as git reads them (setup.c): `gitdir: `
 * first, only the trailing line ends trimmed, a relative value from the file's folder. One reader for the
 * sandbox (which git data to show git) and the policy (where `$(git rev-parse --git-dir)` is): a forged
 * `.git` file whose value began with spaces named one folder to a trimming reader and another to git.
 */
import fs from "node:fs";
import path from "node:path";

/** What a `.git` file names (absolute), or undefined when it is not one git reads. */
export function gitFileTarget(file: string): string | undefined {
  const text = fs.readFileSync(file, "utf8");
  if (!text.startsWith("gitdir: ")) return undefined;
  const value = text.slice("gitdir: ".length).replace(/[\r\n]+$/, "");
  if (!value) return undefined;
  return path.isAbsolute(value) ? value : path.join(path.dirname(file), value);
}

/** A git dir's `commondir` or `gitdir` file as git reads it: relative to `base`; undefined when unreadable. */
export function readGitLink(file: string, base: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const value = text.replace(/[\r\n]+$/, "");
  if (!value) return undefined;
  return path.isAbsolute(value) ? value : path.join(base, value);
}

/** The git dir of the work tree at `top`: its `.git` folder, or what its `.git` file names; undefined if none. */
export function gitDirAt(top: string): string | undefined {
  const dotGit = path.join(top, ".git");
  const st = fs.statSync(dotGit, { throwIfNoEntry: false });
  if (!st) return undefined;
  return st.isFile() ? gitFileTarget(dotGit) : dotGit;
}
