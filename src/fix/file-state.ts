/** What a transaction remembers of a file: content hash (null when absent), mode and size. */
import { createHash } from "node:crypto";
import { readFileIn } from "../paths/safe-fs.js";

export interface FileState {
  /** sha256 of the content, or null when the file does not exist. */
  sha256: string | null;
  /** Permission bits. */
  mode: number;
  size: number;
}

export function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * The state and content of `file` inside `root` (content undefined when absent), read without following a
 * link swapped into its path (see safe-fs).
 */
export async function readFileState(
  root: string,
  file: string,
): Promise<{ state: FileState; content?: Buffer }> {
  const read = readFileIn(root, file);
  if (!read) return { state: { sha256: null, mode: 0, size: 0 } };
  return {
    state: { sha256: sha256(read.content), mode: read.stat.mode, size: read.content.length },
    content: read.content,
  };
}

export function sameState(a: FileState, b: FileState): boolean {
  return a.sha256 === b.sha256 && (a.sha256 === null || a.mode === b.mode);
}

/**
 * The mode a restore gives a file: the recorded permission bits, and a setuid, setgid or sticky bit only when
 * the file has it now as well (the record lives in the project, so it may have been tampered with).
 */
export function restoredMode(recorded: number, current: number | undefined): number {
  return (recorded & 0o777) | (recorded & (current ?? 0) & 0o7000);
}
