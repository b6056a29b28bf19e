/**
 * Display paths, decided here only: relative to the project root of the call's target (see
 * paths/project-root.ts), so they read the same whatever directory the server was started in and never
 * climb with `../`. A file inside another allowed root is shown relative to that root; only a file
 * outside every allowed root (one a tool named by itself) is shown absolute. The way back is the allowlist's
 * `locate` (paths/allowlist.ts): a path shown here, given to a later call (as `path`, or as a `files` entry of
 * a call on a sub-folder), resolves against the same project root.
 */
import path from "node:path";
import { isWithin } from "../paths/allowlist.js";
import { projectRootOf } from "../paths/project-root.js";
import { relativeTo } from "../paths/fast-relative.js";

export interface DisplayPaths {
  /** The project root paths are shown relative to. */
  root: string;
  /** The display path of an absolute file ("" stays ""). */
  show(file: string): string;
  /** True when the file lies inside an allowed root (the server may read it). */
  readable(file: string): boolean;
  /** The allowed root holding an absolute file, undefined outside every one. */
  allowedRoot(file: string): string | undefined;
}

/** Longest allowed root containing `file`. */
function allowedRootOf(file: string, roots: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const r of roots) if (isWithin(r, file) && (!best || r.length > best.length)) best = r;
  return best;
}

function relativeOrDot(base: string, file: string): string {
  return relativeTo(base, file) || path.basename(file) || ".";
}

/** The display paths of a call about `target` (canonical, inside one of `roots`). */
export function displayPaths(target: string, roots: readonly string[]): DisplayPaths {
  const allowed = allowedRootOf(target, roots) ?? target;
  const root = projectRootOf(target, allowed);
  // Findings repeat files many times over: each file's display path is worked out once.
  const cache = new Map<string, string>();
  const compute = (file: string) => {
    if (!file || !path.isAbsolute(file)) return file;
    if (isWithin(root, file)) return relativeOrDot(root, file);
    const other = allowedRootOf(file, roots);
    return other ? relativeOrDot(other, file) : file;
  };
  return {
    root,
    show(file) {
      let shown = cache.get(file);
      if (shown === undefined) {
        shown = compute(file);
        cache.set(file, shown);
      }
      return shown;
    },
    readable: (file) => path.isAbsolute(file) && allowedRootOf(file, roots) !== undefined,
    allowedRoot: (file) => (path.isAbsolute(file) ? allowedRootOf(file, roots) : undefined),
  };
}

/** A file a tool named relative to the server's working directory (or absolute), as a display path. */
export function showFromCwd(display: DisplayPaths, cwd: string, file: string): string {
  return file ? display.show(path.resolve(cwd, file)) : file;
}

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/** One `--- name` / `+++ name` header with its file shown by display path (git's a/ b/ kept). */
function rebaseHeader(line: string, display: DisplayPaths, cwd: string): string {
  const sign = line.slice(0, 4);
  const rest = line.slice(4);
  const tab = rest.indexOf("\t");
  const name = tab === -1 ? rest : rest.slice(0, tab);
  const tail = tab === -1 ? "" : rest.slice(tab);
  const git = /^[ab]\//.test(name) && !path.isAbsolute(name) ? name.slice(0, 2) : "";
  const file = git ? name.slice(2) : name;
  if (!file || file === "/dev/null") return line;
  return `${sign}${git}${showFromCwd(display, cwd, file)}${tail}`;
}

/**
 * A unified diff (ours or a tool's) whose file headers name files relative to `cwd`, with those names
 * rewritten as display paths. Hunk bodies are counted, not guessed at: a removed line reading `-- x`
 * inside a hunk is never taken for a header.
 */
export function rebaseDiff(diff: string, cwd: string, display: DisplayPaths): string {
  const lines = diff.split("\n");
  let oldLeft = 0;
  let newLeft = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith("\\")) continue;
      if (line.startsWith("-")) oldLeft--;
      else if (line.startsWith("+")) newLeft--;
      else {
        oldLeft--;
        newLeft--;
      }
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
    } else if (line.startsWith("--- ") || line.startsWith("+++ "))
      lines[i] = rebaseHeader(line, display, cwd);
  }
  return lines.join("\n");
}
