/**
 * Race-safe reads and writes of the server's own, inside one canonical root. Every path is reached from the
 * root down one component at a time with O_NOFOLLOW, each step relative to the directory already open (on
 * Linux through /proc/self/fd/N, which resolves inside that very directory, like openat), and the root's
 * descriptor is checked to be the root itself. So a symlink swapped in after a path was checked is never
 * followed: the call refuses (path_validation) instead. Writes go to an exclusively created temp file with an
 * unpredictable name beside the target and are renamed into place (the mode kept), so a kill leaves the old
 * bytes or the new ones, never a partial file.
 *
 * Elsewhere than Linux the same checks run on the path itself (each component opened with O_NOFOLLOW and its
 * identity compared with the path's) and a window between check and use remains: see docs/path-safety.md.
 *
 * This module gathers the parts: safe-dir.ts (opening without links), safe-read.ts, safe-write.ts and
 * source-files.ts (the adapters' reads and rewrites by allowed root).
 */
export { openDirIn, SafeDir, type LinkPolicy, type SafeRead, type SafeStat } from "./safe-dir.js";
export { BatchReader, listDirIn, lstatIn, readFileIn, readTextIn } from "./safe-read.js";
export {
  appendFileIn,
  createFileIn,
  removeFileIn,
  removeTreeIn,
  renameIn,
  sha256Hex,
  writeFileIn,
  writeObserver,
  type WriteObserver,
  type WriteOptions,
} from "./safe-write.js";
export { readSourceText, readSourceTexts, rewriteSource, type RootFinder } from "./source-files.js";
