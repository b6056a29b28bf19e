/** Listing a folder during a bounded walk of a project tree. */
import fs from "node:fs";

/**
 * The entries of `dir` (links not followed), or none when it cannot be listed: a walk meets folders
 * removed under it or not readable, and skips them rather than failing the whole call.
 */
export function dirEntries(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
