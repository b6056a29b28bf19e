/**
 * Content hashes of input files, remembered by their stat: a file whose inode, size, mtime and ctime
 * (nanoseconds) are unchanged is not read again. A file modified less than RACY_NS before it was hashed
 * is hashed again next time (as git does with "racily clean" entries): the file system's clock is
 * coarse, so a second write in the same tick could keep every stat field.
 */
import fs from "node:fs";
import { sha256 } from "./hash.js";

const RACY_NS = 50_000_000n;
/** Most files remembered; beyond, the first remembered is forgotten. */
const MAX_MEMO = 200_000;

interface Memo {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  hash: string;
}

export class FileHashes {
  private readonly memo = new Map<string, Memo>();
  /** Files read (hashed) since the server started, for tests and get_status. */
  reads = 0;

  /**
   * The SHA-256 of `file`'s content, or undefined when it is not a regular file (gone, a link, a folder).
   * Links are never followed: the caller lists files, not links.
   */
  hashOf(file: string): string | undefined {
    let st: fs.BigIntStats | undefined;
    try {
      st = fs.lstatSync(file, { bigint: true });
    } catch {
      this.memo.delete(file);
      return undefined;
    }
    if (!st.isFile()) {
      this.memo.delete(file);
      return undefined;
    }
    const m = this.memo.get(file);
    if (m && m.ino === st.ino && m.size === st.size && m.mtimeNs === st.mtimeNs && m.ctimeNs === st.ctimeNs)
      return m.hash;
    const before = process.hrtime.bigint();
    let data: Buffer;
    try {
      data = fs.readFileSync(file);
    } catch {
      return undefined;
    }
    this.reads++;
    // The executable bit is part of what a tool sees (RuboCop's Lint/ScriptPermission reads it).
    const hash = sha256(data) + ((st.mode & 0o111n) !== 0n ? "+x" : "");
    // Trust the memo next time only if the file had not been touched just before we read it.
    const wallNs = BigInt(Date.now()) * 1_000_000n - (process.hrtime.bigint() - before);
    if (wallNs - st.mtimeNs > RACY_NS && wallNs - st.ctimeNs > RACY_NS && BigInt(data.length) === st.size) {
      if (this.memo.size >= MAX_MEMO) this.memo.delete(this.memo.keys().next().value as string);
      this.memo.set(file, { ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, hash });
    } else this.memo.delete(file);
    return hash;
  }
}
