/**
 * `check --shard i/n`: a deterministic split of a project's files between n CI jobs. A file belongs to the
 * shard its path (relative to the project root, `/`-separated) hashes to, so every machine splits alike.
 */
import path from "node:path";
import { sha256 } from "./hash.js";

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** The 1-based shard of a key (a relative path, or a check's name). */
export function shardOfKey(key: string, count: number): number {
  return (Number.parseInt(sha256(key).slice(0, 8), 16) % count) + 1;
}

/** Whether `file` (absolute, under `root`) is in `shard`. */
export function inShard(shard: Shard, root: string, file: string): boolean {
  const rel = path.relative(root, file).split(path.sep).join("/");
  return shardOfKey(rel, shard.count) === shard.index;
}

/** Parses `i/n` (1 ≤ i ≤ n ≤ 1024); undefined when it is not one. */
export function parseShard(text: string): Shard | undefined {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) return undefined;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return index >= 1 && count >= 1 && index <= count && count <= 1024 ? { index, count } : undefined;
}
