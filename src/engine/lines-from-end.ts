/**
 * Reads a text file's lines from its end, in chunks, so the newest entries of a large JSON-lines log
 * cost what they hold, not what the file holds: at most one chunk plus one line is in memory at a time.
 * A line longer than `maxLineBytes` is skipped (it could not be a sane entry anyway).
 */
import fs from "node:fs/promises";
import { constants } from "node:fs";

export interface LinesFromEndOptions {
  chunkBytes?: number;
  maxLineBytes?: number;
  /** Refuse a symbolic link at the path (O_NOFOLLOW). */
  noFollow?: boolean;
}

/** The file's lines, last first; a missing file has none. */
export async function* linesFromEnd(file: string, options: LinesFromEndOptions = {}): AsyncGenerator<string> {
  const chunkBytes = options.chunkBytes ?? 64 * 1024;
  const maxLineBytes = options.maxLineBytes ?? 1024 * 1024;
  const flags = constants.O_RDONLY | (options.noFollow ? constants.O_NOFOLLOW : 0);
  const handle = await fs.open(file, flags).catch(() => undefined);
  if (!handle) return;
  try {
    let pos = (await handle.stat()).size;
    // The start of a line whose beginning lies in an earlier chunk; `skipping` drops an over-long one.
    let partial: Buffer = Buffer.alloc(0);
    let skipping = false;
    while (pos > 0) {
      const len = Math.min(chunkBytes, pos);
      pos -= len;
      const chunk = Buffer.alloc(len);
      await handle.read(chunk, 0, len, pos);
      let end = chunk.length;
      for (
        let nl = chunk.lastIndexOf(0x0a, end - 1);
        nl !== -1;
        nl = nl > 0 ? chunk.lastIndexOf(0x0a, nl - 1) : -1
      ) {
        const line = Buffer.concat([chunk.subarray(nl + 1, end), partial]);
        partial = Buffer.alloc(0);
        if (!skipping && line.length > 0) yield line.toString("utf8");
        skipping = false;
        end = nl;
        if (nl === 0) break;
      }
      if (skipping) continue;
      partial = Buffer.concat([chunk.subarray(0, end), partial]);
      if (partial.length > maxLineBytes) {
        partial = Buffer.alloc(0);
        skipping = true;
      }
    }
    if (!skipping && partial.length > 0) yield partial.toString("utf8");
  } finally {
    await handle.close();
  }
}
