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

/**
 * The newest `limit` entries of JSON-lines logs, oldest first. `files` come newest first and each is read
 * from its end; each line is parsed and given to `entry`, which returns the entry or undefined to skip it
 * (blank and corrupt lines are skipped before). Only what is returned is held, so a long history costs
 * what is asked of it. The server's audit log and each project's transaction audit read through it.
 */
export async function newestJsonEntries<T>(
  files: readonly string[],
  limit: number,
  entry: (value: unknown) => T | undefined,
  options: LinesFromEndOptions = {},
): Promise<T[]> {
  const newestFirst: T[] = [];
  if (limit <= 0) return newestFirst;
  for (const file of files)
    for await (const line of linesFromEnd(file, options)) {
      const value = jsonLine(line);
      const e = value === undefined ? undefined : entry(value);
      if (e === undefined) continue;
      newestFirst.push(e);
      if (newestFirst.length >= limit) return newestFirst.reverse();
    }
  return newestFirst.reverse();
}

/** A line's JSON value; undefined for a blank or corrupt line. */
function jsonLine(line: string): unknown {
  if (!line.trim()) return undefined;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}
