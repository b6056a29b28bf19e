// The caches a cold run starts without (fresh-check's FRESH_CHECK_MODE=cold): those of the tools by hand and
// those of `check`, cleared the same way before every timed run of either side, so both start from the same
// state. Kept: the OS's page cache, downloads (Go's module cache, cargo's registry, zustand's node_modules)
// and what the server keeps for every project alike (its probes and its V8 code cache for the workers'
// bundles, `$XDG_CACHE_HOME/mcp-code-quality/{probes,v8-code-cache}`).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Folders and files a tool by hand leaves in a project as its cache, by name. */
const PROJECT_CACHES = new Set([".ruff_cache", ".eslintcache", ".mypy_cache", ".prettiercache"]);
/** What stays under `$XDG_CACHE_HOME/mcp-code-quality`. */
export const KEPT_SERVER_STATE = new Set(["probes", "v8-code-cache"]);

/**
 * The environment of a cold run: the tools' caches named outright in `xdg` (a per-project temporary folder),
 * never one the user's environment points elsewhere (a shared GOCACHE would stay warm), and cargo's target
 * directory left to each side (`target/` by hand, the server's own per-project folder for check).
 */
export function coldEnv(env, xdg) {
  const out = {
    ...env,
    XDG_CACHE_HOME: xdg,
    GOCACHE: path.join(xdg, "go-build"),
    GOLANGCI_LINT_CACHE: path.join(xdg, "golangci-lint"),
  };
  // RuboCop's follows XDG_CACHE_HOME (`rubocop_cache` in it) unless RUBOCOP_CACHE_ROOT says otherwise.
  for (const name of [
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET_DIR",
    "RUBOCOP_CACHE_ROOT",
    "STATICCHECK_CACHE",
    "BLACK_CACHE_DIR",
  ])
    delete out[name];
  return out;
}

/** The ignored paths of a git checkout (folders as one entry), relative. */
function ignored(dir) {
  const r = spawnSync(
    "git",
    ["-C", dir, "ls-files", "--others", "--ignored", "--exclude-standard", "--directory", "-z"],
    { encoding: "utf8" },
  );
  return r.status === 0 ? r.stdout.split("\0").filter(Boolean) : [];
}

/** Each path removed (relative to `dir`), for the bench's note. */
export function clearColdCaches({ dir, xdg, handCache }) {
  const removed = [];
  const rm = (p, label = p) => {
    if (!fs.existsSync(p)) return;
    fs.rmSync(p, { recursive: true, force: true });
    removed.push(label);
  };
  // The project's own: ruff's, ESLint's and mypy's caches wherever they are, cargo's `target/` beside each
  // manifest, node_modules/.cache (Prettier's and ESLint's default).
  for (const rel of ignored(dir)) {
    const p = path.join(dir, rel);
    const name = path.basename(rel.replace(/\/$/, ""));
    if (PROJECT_CACHES.has(name)) rm(p, rel);
    else if (name === "target" && fs.existsSync(path.join(path.dirname(p), "Cargo.toml"))) rm(p, rel);
  }
  rm(path.join(dir, "node_modules", ".cache"), "node_modules/.cache");
  // The tools' caches by hand outside the project (ESLint's and Prettier's cache locations).
  for (const e of fs.existsSync(handCache) ? fs.readdirSync(handCache) : [])
    rm(path.join(handCache, e), `hand:${e}`);
  // Everything under XDG_CACHE_HOME (go-build, golangci-lint, rubocop_cache, ...) but the server's kept state.
  for (const e of fs.existsSync(xdg) ? fs.readdirSync(xdg) : []) {
    if (e === "mcp-code-quality") {
      const server = path.join(xdg, e);
      for (const s of fs.readdirSync(server))
        if (!KEPT_SERVER_STATE.has(s)) rm(path.join(server, s), `xdg:${e}/${s}`);
    } else if (e !== "audit.log") rm(path.join(xdg, e), `xdg:${e}`);
  }
  // The server's per-project scratch folders (cargo's target dir), each named beside it by a `.project` record.
  const scratch = path.join(os.tmpdir(), `mcq-${process.getuid?.() ?? "user"}`);
  for (const e of fs.existsSync(scratch) ? fs.readdirSync(scratch) : []) {
    if (!e.endsWith(".project")) continue;
    const record = path.join(scratch, e);
    let project;
    try {
      project = fs.readFileSync(record, "utf8");
    } catch {
      continue;
    }
    if (project !== dir && !project.startsWith(dir + path.sep)) continue;
    rm(
      record.slice(0, -".project".length),
      `scratch:${e.slice(0, -".project".length).replace(/-[0-9a-f]{20}$/, "")}`,
    );
    fs.rmSync(record, { force: true });
  }
  return removed;
}
