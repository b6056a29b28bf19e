/**
 * A file's path relative to a root, `/`-separated: how cache keys name files, the same on every machine.
 * Called for every file of a project on every cached call, so a file under the root (the usual case) is
 * sliced, not resolved (path.relative resolved both paths each time: about 5 µs a file).
 */
import path from "node:path";
import { relativeTo } from "../paths/fast-relative.js";

export function relativeKey(root: string, file: string): string {
  const rel = relativeTo(root, file);
  return path.sep === "/" ? rel : rel.split(path.sep).join("/");
}
