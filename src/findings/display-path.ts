/**
 * Display paths, decided here only: relative to the project root of the call's target (see
 * paths/project-root.ts), so they read the same whatever directory the server was started in and never
 * climb with `../`. A file inside another allowed root is shown relative to that root; only a file
 * outside every allowed root (one a tool named by itself) is shown absolute.
 */
import path from "node:path";
import { isWithin } from "../paths/allowlist.js";
import { projectRootOf } from "../paths/project-root.js";

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
  return path.relative(base, file) || path.basename(file) || ".";
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
