/**
 * The result cache of one server: memory first (bounded, least recently used out), then the per-user
 * folder on disk (LocalStore), then the team's remote (RemoteStore), each hit copied to the layers above.
 * Entries are JSON: `{k: key, v: value}`; one whose key does not match is ignored. It also holds the
 * server's shared project scan (TreeScanner) and content hashes (FileHashes), which every cached tool uses.
 */
import { LRUCache } from "lru-cache";
import { FileHashes } from "./file-hashes.js";
import { LocalStore } from "./local-store.js";
import { RemoteStore, type RemoteOptions } from "./remote-store.js";
import { sharedTree, type TreeScanner } from "../paths/tree-scan.js";
import { treeStateKey } from "./tree-state-key.js";
import type { Shard } from "./shard.js";

const MEMORY_BYTES = 64 * 1024 * 1024;
const SAVE_HASHES_MS = 30_000;

export interface ResultCacheOptions {
  /** Folder of the local cache; undefined: memory only (the folder could not be used). */
  dir?: string;
  maxBytes: number;
  remote?: RemoteOptions;
  /**
   * The allowed roots: the content hashes of each are remembered on disk (see FileHashes), and no file
   * outside them is read for a key (closure.ts).
   */
  roots?: readonly string[];
  /** Per-file tools run on, and report, this shard's files only (`check --shard`). */
  shard?: Shard;
  onError?: (message: string) => void;
}

export interface CacheStats {
  memory_hits: number;
  local_hits: number;
  remote_hits: number;
  misses: number;
}

export class ResultCache {
  readonly tree: TreeScanner = sharedTree;
  readonly hashes: FileHashes;
  readonly local: LocalStore | undefined;
  readonly remote: RemoteStore | undefined;
  readonly stats: CacheStats = { memory_hits: 0, local_hits: 0, remote_hits: 0, misses: 0 };
  readonly shard: Shard | undefined;
  /** The allowed roots: a closure file outside them is never read (see closure.ts). */
  readonly roots: readonly string[];
  /** Configuration closures by what they were resolved for (closure.ts), as remembered: 10,000 at most, least recently used out. */
  readonly closures = new LRUCache<string, object>({ max: 10_000 });
  /**
   * Parsed values by key, weighed by the length of their JSON, least recently used out; one over a
   * quarter of the whole is not kept (nor what was under its key). Boxed: a value may be null.
   * Callers never mutate them.
   */
  private readonly memory = new LRUCache<string, { value: unknown }>({
    maxSize: MEMORY_BYTES,
    maxEntrySize: MEMORY_BYTES / 4,
  });
  private readonly saveTimer: NodeJS.Timeout | undefined;

  constructor(options: ResultCacheOptions) {
    this.shard = options.shard;
    this.roots = options.roots ?? [];
    this.local = options.dir ? new LocalStore(options.dir, options.maxBytes, options.onError) : undefined;
    this.hashes = new FileHashes(
      this.local && options.roots ? { store: this.local, roots: options.roots } : undefined,
      this.roots,
    );
    // The tree scan's listings and walks beside the hashes, for the next fresh process (tree-scan.ts).
    if (this.local && options.roots)
      sharedTree.persistTo(this.local, options.roots, this.local.root, treeStateKey);
    // A long-lived server keeps its memo on disk now and then; a lost save only costs a re-read.
    if (this.local) this.saveTimer = setInterval(() => this.saveMemos(), SAVE_HASHES_MS).unref();
    this.remote = options.remote
      ? new RemoteStore({ ...options.remote, onError: options.onError })
      : undefined;
  }

  private decode<T>(key: string, text: string | undefined): T | undefined {
    if (text === undefined) return undefined;
    try {
      const entry = JSON.parse(text) as { k?: unknown; v?: T };
      return entry.k === key ? entry.v : undefined;
    } catch {
      return undefined;
    }
  }

  /** From memory or the local folder (synchronous: no network on this path). Never mutate the value. */
  getLocal<T>(key: string): T | undefined {
    const inMemory = this.memory.get(key)?.value;
    if (inMemory !== undefined) {
      this.stats.memory_hits++;
      return inMemory as T;
    }
    const onDisk = this.local?.get(key)?.toString("utf8");
    const value = this.decode<T>(key, onDisk);
    if (value !== undefined) {
      this.stats.local_hits++;
      this.memory.set(key, { value }, { size: (onDisk as string).length });
    }
    return value;
  }

  /** From the remote only (copied to the local layers when found there); undefined without one. */
  async getRemote<T>(key: string): Promise<T | undefined> {
    if (!this.remote) return undefined;
    const text = (await this.remote.get(key))?.toString("utf8");
    const value = this.decode<T>(key, text);
    if (value === undefined) return undefined;
    this.stats.remote_hits++;
    this.memory.set(key, { value }, { size: (text as string).length });
    this.local?.put(key, text as string);
    return value;
  }

  /** Local first, then the remote. */
  async get<T>(key: string): Promise<T | undefined> {
    const value = this.getLocal<T>(key) ?? (await this.getRemote<T>(key));
    if (value === undefined) this.stats.misses++;
    return value;
  }

  /** Stores in memory now, on disk (and on the remote unless `local`) in the background. */
  put(key: string, value: unknown, options: { local?: boolean } = {}): void {
    const text = JSON.stringify({ k: key, v: value });
    this.memory.set(key, { value }, { size: text.length });
    this.local?.put(key, text);
    if (!options.local) this.remote?.put(key, text);
  }

  /** Waits for background writes (local and remote). */
  async flush(): Promise<void> {
    await Promise.all([this.local?.flush(), this.remote?.flush()]);
  }

  private saveMemos(): void {
    this.hashes.save();
    sharedTree.savePersisted();
  }

  async close(): Promise<void> {
    clearInterval(this.saveTimer);
    this.saveMemos();
    await this.flush();
  }
}
