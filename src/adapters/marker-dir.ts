/**
 * A project's folder found by its marker file (go.mod, Cargo.toml, .rubocop.yml) from a target upwards. The
 * walk looks in the target's own folder first, even when that is not below `root` (a type checker's claims
 * pass the target itself as root), and goes up only while it is strictly below `root`; nearestWith
 * (project-configs.ts) instead looks only inside `root`.
 */
import fs from "node:fs";
import path from "node:path";

/** Whether `p` is a directory (false when it is missing or cannot be read). */
export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The nearest folder holding `marker`, from the target's folder up to `root`; undefined when none. */
export function nearestMarkerDir(target: string, root: string, marker: string): string | undefined {
  let dir = isDirectory(target) ? target : path.dirname(target);
  for (;;) {
    if (fs.existsSync(path.join(dir, marker))) return dir;
    if (dir === root || !dir.startsWith(root + path.sep)) return undefined;
    dir = path.dirname(dir);
  }
}
