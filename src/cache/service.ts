/**
 * The server's one result cache (a service of the engine), built from the configuration on first use;
 * undefined when `--result-cache false`.
 */
import os from "node:os";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { Services } from "../engine/services.js";
import { isWithin, resolveRoots } from "../paths/allowlist.js";
import { sharedTree } from "../paths/tree-scan.js";
import { LocalStore } from "./local-store.js";
import { prepareCacheDir } from "./location.js";
import { ResultCache } from "./result-cache.js";
import { treeStateKey } from "./tree-state-key.js";

export interface CacheHost {
  config: Config;
  services: Services;
  log: Logger;
  allowlist: { roots: { effective: readonly string[] } };
}

/**
 * Why the cache folder cannot be used, or undefined: it must not lie inside an allowed path (a read-only
 * tool never writes into a project), unless that path holds the whole home folder the per-user cache is in.
 */
export function cacheDirProblem(dir: string, roots: readonly string[]): string | undefined {
  const home = os.homedir();
  const inside = roots.find((r) => isWithin(r, dir) && !isWithin(r, home));
  if (inside) return `${dir} is inside the allowed path ${inside}`;
  return prepareCacheDir(dir);
}

export function resultCacheOf(host: CacheHost): ResultCache | undefined {
  const { config } = host;
  if (!config.resultCache) return undefined;
  return host.services.get("result-cache", () => {
    const problem = cacheDirProblem(config.resultCacheDir, host.allowlist.roots.effective);
    if (problem) host.log.warn(`result cache: ${problem}; results are cached in memory only`);
    const remote =
      config.remoteCacheUrl && config.remoteCacheToken && config.remoteCacheTeam && config.remoteCacheSecret
        ? {
            url: config.remoteCacheUrl,
            token: config.remoteCacheToken,
            team: config.remoteCacheTeam,
            secret: config.remoteCacheSecret,
            timeoutMs: config.remoteCacheTimeoutMs,
            readOnly: config.remoteCacheReadOnly,
          }
        : undefined;
    let warned = false;
    return new ResultCache({
      dir: problem ? undefined : config.resultCacheDir,
      maxBytes: config.resultCacheMaxMb * 1024 * 1024,
      roots: host.allowlist.roots.effective,
      remote,
      shard: config.shard,
      onError: (message) => {
        // One warning per server is enough: the cache failing never fails a call.
        if (!warned) host.log.warn(message);
        warned = true;
      },
    });
  });
}

/**
 * Points the tree scan at the result cache's folder before a `check` plans its paths (planPath walks the
 * tree before the engine and its cache exist), so that its walks too are those the last run kept
 * (tree-scan.ts, persistTo). The cache, once made, takes over the same folder.
 */
export function persistTreeScanEarly(config: Config): void {
  if (!config.resultCache) return;
  const roots = resolveRoots(config.allowedPaths).effective;
  if (cacheDirProblem(config.resultCacheDir, roots)) return;
  const store = new LocalStore(config.resultCacheDir, config.resultCacheMaxMb * 1024 * 1024);
  sharedTree.persistTo(store, roots, store.root, treeStateKey);
}

/** The `cached` field of a result: "12 of 12 files" (absent when nothing was cached or looked up). */
export function cachedField(c: { cached: number; total: number } | undefined): string | undefined {
  if (!c || c.total === 0) return undefined;
  return `${c.cached} of ${c.total} file${c.total === 1 ? "" : "s"}`;
}

/**
 * A result's cache fields: `cached` (see cachedField) and, when the run could not be stored, `uncached`
 * with the reason (so a result that will never be served from the cache says so).
 */
export function cacheFields(c: { cached: number; total: number; uncached?: string } | undefined): {
  cached?: string;
  uncached?: string;
} {
  if (!c) return {};
  const cached = cachedField(c);
  return { ...(cached !== undefined && { cached }), ...(c.uncached && { uncached: c.uncached }) };
}
