/** The server's result-cache options: the local cache and the shared remote one (docs/result-cache.md). */
import { defaultResultCacheDir } from "../cache/location.js";
import type { Config } from "./types.js";
import { opt, type OptionSpec } from "./option-spec.js";
import { absolutePath, bool, httpUrl, int, nonEmpty } from "./values.js";

export const CACHE_OPTIONS: OptionSpec<keyof Config>[] = [
  opt({
    key: "resultCache",
    flag: "--result-cache",
    env: ["MCP_CODE_QUALITY_RESULT_CACHE"],
    fallback: () => true,
    parse: bool,
    help: "reuse results of unchanged files and projects (true/false; docs/result-cache.md)",
  }),
  opt({
    key: "treeWatch",
    flag: "--tree-watch",
    env: ["MCP_CODE_QUALITY_TREE_WATCH"],
    fallback: () => true,
    parse: bool,
    help: "a long-lived server or check daemon learns the tree's changes from inotify, not a stat of every file a call (true/false; docs/result-cache.md)",
  }),
  opt({
    key: "resultCacheDir",
    flag: "--result-cache-dir",
    env: ["MCP_CODE_QUALITY_RESULT_CACHE_DIR"],
    fallback: () => defaultResultCacheDir(),
    parse: absolutePath,
    help: "folder of the result cache (default $XDG_CACHE_HOME/mcp-code-quality/results)",
  }),
  opt({
    key: "resultCacheMaxMb",
    flag: "--result-cache-max-mb",
    env: ["MCP_CODE_QUALITY_RESULT_CACHE_MAX_MB"],
    fallback: () => 512,
    parse: int(1, 1024 * 1024),
    help: "MiB the result cache is kept under, least recently used out (default 512)",
  }),
  opt({
    key: "remoteCacheUrl",
    flag: "--remote-cache-url",
    env: ["MCP_CODE_QUALITY_REMOTE_CACHE_URL"],
    fallback: () => undefined,
    parse: httpUrl,
    help: "a team's Turborepo remote cache server (e.g. https://cache.example.com); off by default",
  }),
  opt({
    key: "remoteCacheToken",
    flag: "--remote-cache-token",
    env: ["MCP_CODE_QUALITY_REMOTE_CACHE_TOKEN", "TURBO_TOKEN"],
    fallback: () => undefined,
    parse: nonEmpty,
    help: "bearer token of the remote cache",
  }),
  opt({
    key: "remoteCacheTeam",
    flag: "--remote-cache-team",
    env: ["MCP_CODE_QUALITY_REMOTE_CACHE_TEAM", "TURBO_TEAM"],
    fallback: () => undefined,
    parse: nonEmpty,
    help: "team id of the remote cache (its teamId)",
  }),
  opt({
    key: "remoteCacheSecret",
    flag: "--remote-cache-secret",
    env: ["MCP_CODE_QUALITY_REMOTE_CACHE_SECRET", "TURBO_REMOTE_CACHE_SIGNATURE_KEY"],
    fallback: () => undefined,
    parse: nonEmpty,
    help: "the team's secret that names and signs its entries (required with --remote-cache-url)",
  }),
  opt({
    key: "remoteCacheTimeoutMs",
    flag: "--remote-cache-timeout-ms",
    env: ["MCP_CODE_QUALITY_REMOTE_CACHE_TIMEOUT_MS"],
    fallback: () => 1500,
    parse: int(50, 60_000),
    help: "ms a remote cache request may take before the local cache answers alone (50-60000)",
  }),
  opt({
    key: "remoteCacheReadOnly",
    flag: "--remote-cache-read-only",
    env: ["MCP_CODE_QUALITY_REMOTE_CACHE_READ_ONLY"],
    fallback: () => false,
    parse: bool,
    help: "read from the remote cache, never write to it (true/false)",
  }),
];
