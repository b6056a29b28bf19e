/**
 * Which lock folder this is: its inode and creation time. The inode alone is not enough: ext4 gives the
 * folder another process makes after removing ours (a takeover of a stale lock) the same inode number.
 */
import type fs from "node:fs";

export function lockIdentity(st: fs.Stats): string {
  return `${st.ino}:${st.birthtimeMs}`;
}
