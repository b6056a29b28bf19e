/**
 * The result cache on disk: one file per entry under `<dir>/v1/<first two hex>/<key>`, owner-only.
 * Safe under concurrent servers: an entry is written to an exclusively created temp file and renamed into
 * place (a reader sees the old entry, the new one, or none, never half of one); files are opened without
 * following links. Bounded: past `maxBytes`, the least recently used entries (by mtime, which a hit
 * refreshes once per server) are deleted, by a sweep that runs off the call path.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";

const LAYOUT = "v1";
/** A larger file under the cache folder is not an entry of ours. */
const MAX_ENTRY_BYTES = 256 * 1024 * 1024;
/** Temp files of a writer that died are removed by a sweep after this. */
const STALE_TEMP_MS = 60 * 60 * 1000;
const KEY = /^[0-9a-f]{16,128}$/;

export interface StoreStats {
  hits: number;
  misses: number;
  writes: number;
  evicted: number;
}

export class LocalStore {
  readonly root: string;
  readonly stats: StoreStats = { hits: 0, misses: 0, writes: 0, evicted: 0 };
  private readonly touched = new Set<string>();
  private readonly madeShards = new Set<string>();
  private pending = new Set<Promise<void>>();
  // The first write of a server sweeps, so many short-lived servers cannot grow the cache unbounded.
  private writtenSinceSweep = Number.POSITIVE_INFINITY;
  private sweeping: Promise<void> | undefined;

  constructor(
    dir: string,
    readonly maxBytes: number,
    private readonly onError: (message: string) => void = () => {},
  ) {
    this.root = path.join(dir, LAYOUT);
  }

  private fileOf(key: string): string {
    if (!KEY.test(key)) throw new Error(`not a cache key: ${key}`);
    return path.join(this.root, key.slice(0, 2), key);
  }

  /** The entry's bytes, or undefined (absent, unreadable, not a regular file). */
  get(key: string): Buffer | undefined {
    const file = this.fileOf(key);
    let fd: number;
    try {
      fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch {
      this.stats.misses++;
      return undefined;
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile() || st.size > MAX_ENTRY_BYTES) {
        this.stats.misses++;
        return undefined;
      }
      const data = fs.readFileSync(fd);
      this.stats.hits++;
      if (!this.touched.has(key)) {
        // Recently used: the sweep deletes by oldest mtime. Once per server and entry is enough.
        this.touched.add(key);
        const now = new Date();
        fs.futimesSync(fd, now, now);
      }
      return data;
    } catch {
      this.stats.misses++;
      return undefined;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Stores the entry in the background (see flush); a failure is reported once through onError. */
  put(key: string, data: string | Buffer): void {
    const file = this.fileOf(key);
    const p = this.write(file, data)
      .catch((err: unknown) => this.onError(`result cache: cannot write ${file}: ${String(err)}`))
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
    this.touched.add(key);
    this.writtenSinceSweep += typeof data === "string" ? Buffer.byteLength(data) : data.length;
    if (this.writtenSinceSweep > this.maxBytes / 8 && !this.sweeping) {
      this.writtenSinceSweep = 0;
      this.sweeping = this.sweep()
        .then(() => undefined)
        .catch((err: unknown) => this.onError(`result cache: sweep failed: ${String(err)}`))
        .finally(() => (this.sweeping = undefined));
    }
  }

  private async write(file: string, data: string | Buffer): Promise<void> {
    const shard = path.dirname(file);
    if (!this.madeShards.has(shard)) {
      await fsp.mkdir(shard, { recursive: true, mode: 0o700 });
      this.madeShards.add(shard);
    }
    const temp = path.join(shard, `.tmp-${process.pid}-${randomBytes(6).toString("hex")}`);
    const handle = await fsp.open(
      temp,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
      0o600,
    );
    try {
      try {
        await handle.writeFile(data);
      } finally {
        await handle.close();
      }
      await fsp.rename(temp, file);
    } catch (err) {
      // A full disk (ENOSPC while writing) or a failed rename: no temp file is left behind.
      await fsp.rm(temp, { force: true });
      throw err;
    }
    this.stats.writes++;
  }

  /** Waits for the writes in flight (the server does before it exits). */
  async flush(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
    await this.sweeping;
  }

  /**
   * Deletes the least recently used entries until the cache is under 80% of maxBytes, and temp files
   * left by writers that died. Entries another server deletes meanwhile are skipped.
   */
  async sweep(): Promise<{ bytes: number; evicted: number }> {
    const entries: { file: string; size: number; mtimeMs: number }[] = [];
    let shards: string[];
    try {
      shards = await fsp.readdir(this.root);
    } catch {
      return { bytes: 0, evicted: 0 };
    }
    const now = Date.now();
    for (const shard of shards) {
      const dir = path.join(this.root, shard);
      const names = await fsp.readdir(dir).catch(() => [] as string[]);
      for (const name of names) {
        const file = path.join(dir, name);
        const st = await fsp.lstat(file).catch(() => undefined);
        if (!st?.isFile()) continue;
        if (name.startsWith(".tmp-")) {
          if (now - st.mtimeMs > STALE_TEMP_MS) await fsp.rm(file, { force: true });
          continue;
        }
        entries.push({ file, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
    let bytes = entries.reduce((a, e) => a + e.size, 0);
    let evicted = 0;
    if (bytes > this.maxBytes) {
      entries.sort((a, b) => a.mtimeMs - b.mtimeMs);
      const goal = this.maxBytes * 0.8;
      for (const e of entries) {
        if (bytes <= goal) break;
        await fsp.rm(e.file, { force: true });
        bytes -= e.size;
        evicted++;
      }
    }
    this.stats.evicted += evicted;
    return { bytes, evicted };
  }
}
