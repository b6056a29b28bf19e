/** What a transaction remembers of a file: content hash (null when absent), mode and size. */
import { createHash } from "node:crypto";
import fs from "node:fs/promises";

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

/** The file's state and content (content undefined when absent). */
export async function readFileState(file: string): Promise<{ state: FileState; content?: Buffer }> {
  try {
    const [content, st] = await Promise.all([fs.readFile(file), fs.stat(file)]);
    return { state: { sha256: sha256(content), mode: st.mode & 0o7777, size: content.length }, content };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      return { state: { sha256: null, mode: 0, size: 0 } };
    throw err;
  }
}

export function sameState(a: FileState, b: FileState): boolean {
  return a.sha256 === b.sha256 && (a.sha256 === null || a.mode === b.mode);
}
