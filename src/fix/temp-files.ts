/**
 * Temp files a killed writer left: safe-fs writes `.mcq-<24 hex>.tmp` beside each file before renaming it
 * into place, so a kill between the two leaves one behind. Recovery removes those in the folders of the
 * files a dead transaction may have written.
 */
import path from "node:path";
import { listDirIn, removeFileIn } from "../paths/safe-fs.js";

const TEMP_NAME = /^\.mcq-[0-9a-f]{24}\.tmp$/;

/** Removes leftover temp files in the folders of `files` (relative to root); failures are ignored. */
export function removeTempFiles(root: string, files: readonly string[]): void {
  const dirs = new Set(
    files.filter((f) => typeof f === "string").map((f) => path.dirname(path.resolve(root, f))),
  );
  for (const dir of dirs) {
    try {
      for (const entry of listDirIn(root, dir))
        if (entry.isFile() && TEMP_NAME.test(entry.name)) removeFileIn(root, path.join(dir, entry.name));
    } catch {
      // Outside the root, gone, or behind a link: nothing to clean there.
    }
  }
}
