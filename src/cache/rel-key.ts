/**
 * A file's path relative to a root, `/`-separated: how cache keys name files, the same on every machine.
 * Called for every file of a project on every cached call, so a file under the root (the usual case) is
 * sliced, not resolved (path.relative resolved both paths each time: about 5 µs a file).
 */
import path from "node:path";

export function relativeKey(root: string, file: string): string {
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  if (path.sep === "/" && file.startsWith(prefix) && path.isAbsolute(root) && isNormal(file))
    return file.slice(prefix.length);
  return path.relative(root, file).split(path.sep).join("/");
}

/** No `.`/`..` segment, no doubled or trailing separator: slicing gives what path.relative would. */
function isNormal(file: string): boolean {
  return (
    !file.includes("/./") &&
    !file.includes("/../") &&
    !file.includes("//") &&
    !/\/\.{1,2}$/.test(file) &&
    !file.endsWith("/")
  );
}
