/** What this host has where (system folders, toolchains and caches under $HOME), gathered once per process. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Mount } from "./profile.js";
import type { CacheFamily, CacheSpec, HostLayout } from "./plan.js";
import { PACKAGE_ROOT } from "../../package-root.js";

const SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix"];
const SHELLS = ["sh", "bash", "dash", "rbash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "busybox"];

let layout: HostLayout | undefined;

/** native/go-cache-overlay, built by `npm run build` where Go is installed (scripts/build-native.mjs). */
const GO_CACHE_OVERLAY = path.join(PACKAGE_ROOT, "dist", "native", "go-cache-overlay");

/** The server's package folder. */
export function installDir(): string {
  return PACKAGE_ROOT;
}

/**
 * Where the install's top-level links lead (a `node_modules` or `.tools` linked from another checkout, as in
 * a git worktree, or an `npm link`ed dependency folder): the sandbox binds the install, not what its links
 * point at, so the bundled ESLint could not load `@eslint/js` there. Folders only; never `/` nor $HOME.
 */
function linkedFrom(install: string, home: string): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(install);
  } catch {
    return out;
  }
  for (const name of names) {
    const p = path.join(install, name);
    try {
      if (!fs.lstatSync(p).isSymbolicLink()) continue;
      const real = fs.realpathSync.native(p);
      const inside = real === install || real.startsWith(`${install}/`);
      if (!inside && fs.statSync(real).isDirectory() && real !== "/" && real !== home) out.push(real);
    } catch {
      // A dangling link: nothing to show.
    }
  }
  return out;
}

/** golangci-lint's analysis cache: GOLANGCI_LINT_CACHE, else `$XDG_CACHE_HOME/golangci-lint` (~/.cache). */
export function golangciCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const abs = (v: string | undefined) => (v && path.isAbsolute(v) ? v : undefined);
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir();
  return (
    abs(env.GOLANGCI_LINT_CACHE) ??
    path.join(abs(env.XDG_CACHE_HOME) ?? path.join(home, ".cache"), "golangci-lint")
  );
}

export function hostLayout(env: NodeJS.ProcessEnv = process.env): HostLayout {
  layout ??= gather(env);
  return layout;
}

function gather(env: NodeJS.ProcessEnv): HostLayout {
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir();
  const h = (...p: string[]) => path.join(home, ...p);
  const abs = (v: string | undefined) => (v && path.isAbsolute(v) ? v : undefined);
  const xdgCache = abs(env.XDG_CACHE_HOME) ?? h(".cache");
  // Go reads its own settings file (`go env -w`) under the environment; the sandbox shows it read-only and
  // binds the folders it names.
  const goEnvPath = goEnvFilePath(env);
  const goFile = goEnvPath ? readGoEnvFile(goEnvPath) : {};
  const goSetting = (name: string) => abs(env[name]) ?? abs(goFile[name]);
  const gopath = abs((env.GOPATH ?? goFile.GOPATH)?.split(":")[0]) ?? h("go");
  const cargoHome = abs(env.CARGO_HOME) ?? h(".cargo");
  const existing = (paths: (string | undefined)[]) => [
    ...new Set(paths.filter((p): p is string => p !== undefined && fs.existsSync(p))),
  ];
  const v8Cache = v8CodeCacheDir(env);
  fs.mkdirSync(v8Cache, { recursive: true, mode: 0o700 });
  const none: readonly string[] = [];
  const noCaches: readonly CacheSpec[] = [];
  // In a run of project code: read-only, filled by a step that runs none (fill.ts) ...
  const filled = (p: string, name: string): CacheSpec => ({ path: p, name, withProjectCode: "read-only" });
  // ... or a folder of its own per project.
  const perProject = (p: string, name: string): CacheSpec => ({
    path: p,
    name,
    withProjectCode: "per-project",
  });
  const toolchains: Record<CacheFamily, readonly string[]> = {
    common: existing([
      abs(env.PYENV_ROOT) ?? h(".pyenv"),
      h(".local"),
      h(".rbenv"),
      h(".gem"),
      h(".nvm"),
      h(".volta"),
      h(".asdf"),
    ]),
    go: existing([gopath]),
    cargo: existing([cargoHome, abs(env.RUSTUP_HOME) ?? h(".rustup")]),
    npm: existing([h(".npmrc")]),
    git: existing([h(".gitconfig"), h(".config", "git")]),
    node: none,
    provider: existing([h(".claude"), h(".claude.json"), h(".codex"), h(".gemini")]),
  };
  // Caches whether or not they exist yet: the launcher makes a missing one, so that a tool's first run on a
  // new machine fills a cache the next run finds (not a private $HOME thrown away with the sandbox).
  const goCache = goSetting("GOCACHE") ?? path.join(xdgCache, "go-build");
  const goModCache = goSetting("GOMODCACHE") ?? path.join(gopath, "pkg", "mod");
  const caches: Record<CacheFamily, readonly CacheSpec[]> = {
    common: noCaches,
    go: [filled(goCache, "go-build"), ...(goModCache === goCache ? [] : [filled(goModCache, "go-mod")])],
    cargo: [
      filled(path.join(cargoHome, "registry"), "cargo-registry"),
      filled(path.join(cargoHome, "git"), "cargo-git"),
    ],
    npm: [perProject(h(".npm"), "npm")],
    git: noCaches,
    // Written by the server alone (code-cache.ts), keyed by the source's hash: read-only for every tool.
    node: [{ path: v8Cache, name: "v8-code-cache", withProjectCode: "read-only", serverOnly: true }],
    provider: noCaches,
  };
  // A tool's own cache, for that tool alone (by its facts key).
  const toolCaches: Record<string, readonly CacheSpec[]> = {
    staticcheck: [
      perProject(abs(env.STATICCHECK_CACHE) ?? path.join(xdgCache, "staticcheck"), "staticcheck"),
    ],
    "golangci-lint": [perProject(golangciCacheDir(env), "golangci-lint")],
    black: [perProject(abs(env.BLACK_CACHE_DIR) ?? path.join(xdgCache, "black"), "black")],
  };
  const system: Mount[] = [];
  for (const p of SYSTEM) {
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    system.push(st.isSymbolicLink() ? { path: p, link: fs.readlinkSync(p) } : { path: p });
  }
  const hidden: { path: string; dir: boolean }[] = [];
  const binDirs = [
    "/usr/bin",
    "/usr/local/bin",
    ...(system.some((m) => m.path === "/bin" && !m.link) ? ["/bin"] : []),
  ];
  for (const dir of binDirs)
    for (const name of ["git", ...SHELLS]) {
      const p = path.join(dir, name);
      if (fs.existsSync(p)) hidden.push({ path: p, dir: false });
    }
  for (const dir of ["/usr/lib/git-core", "/usr/libexec/git-core"])
    if (fs.existsSync(dir)) hidden.push({ path: dir, dir: true });
  return {
    system,
    // The kernel's settings: root's uid could write them even without capabilities.
    procReadOnly: ["/proc/sys", "/proc/sysrq-trigger"].filter((p) => fs.existsSync(p)),
    // root's tools are no one's root inside either: an unprivileged id (nobody), root's own files still theirs.
    ...(process.getuid?.() === 0 ? { ids: { uid: 65534, gid: 65534 } } : {}),
    perProjectCaches: path.join(xdgCache, "mcp-code-quality", "per-project"),
    serverPrivate: serverPrivateFolders(env, xdgCache, home),
    home,
    install: installDir(),
    installLinked: linkedFrom(installDir(), home),
    toolchains,
    caches,
    toolCaches,
    ...(goEnvPath ? { goEnvFile: goEnvPath } : {}),
    gitAndShells: hidden,
    // Walked when first needed (~10 ms for /etc): only a run of the project's code needs it.
    ...(process.getuid?.() === 0 ? { ownerOnly: once(() => ownerOnlyUnder("/etc")) } : {}),
    prlimit: ["/usr/bin/prlimit", "/bin/prlimit"].find((p) => fs.existsSync(p)),
    ...(fs.existsSync(GO_CACHE_OVERLAY) ? { goCacheOverlay: GO_CACHE_OVERLAY } : {}),
  };
}

/**
 * The server's private folders, made (owner-only) when missing so that a sandbox can cover them: its scratch
 * root, the check daemon's folder (daemon-dir.ts: in the runtime folder, else in the temp folder), its
 * caches and its state (the default audit log). A folder that is a link or cannot be made is left out.
 */
function serverPrivateFolders(env: NodeJS.ProcessEnv, xdgCache: string, home: string): string[] {
  const uid = process.getuid?.() ?? "user";
  const runtime =
    env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR) ? env.XDG_RUNTIME_DIR : undefined;
  const state =
    env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME)
      ? env.XDG_STATE_HOME
      : path.join(home, ".local", "state");
  const folders = [
    path.join(os.tmpdir(), `mcq-${uid}`),
    path.join(os.tmpdir(), `mcq-daemon-${uid}`),
    ...(runtime ? [path.join(runtime, "mcp-code-quality")] : []),
    path.join(xdgCache, "mcp-code-quality"),
    path.join(state, "mcp-code-quality"),
  ];
  return folders.filter((dir) => {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      return fs.lstatSync(dir).isDirectory();
    } catch {
      return false;
    }
  });
}

function once<T>(make: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: make() }).v;
}

/**
 * The files and folders under `top` that only their owner (or group) may read: /etc/shadow, /etc/gshadow,
 * /etc/ssl/private, a database's pg_hba.conf. root's tools are no one's root in the sandbox, but root's files
 * are still theirs (the uid maps to root), so without this a project's code read /etc/shadow (a red team's
 * run). Links are left alone (their target is what counts, and is walked where it lies under `top`).
 */
function ownerOnlyUnder(top: string): { path: string; dir: boolean }[] {
  const out: { path: string; dir: boolean }[] = [];
  let budget = 20_000;
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (--budget < 0) return;
      const p = path.join(dir, name);
      const st = fs.lstatSync(p, { throwIfNoEntry: false });
      if (!st || st.isSymbolicLink()) continue;
      if (st.isDirectory()) {
        // Others may neither list nor enter it: covered whole.
        if ((st.mode & 0o005) !== 0o005) out.push({ path: p, dir: true });
        else if (depth < 8) walk(p, depth + 1);
      } else if (st.isFile() && (st.mode & 0o004) === 0) out.push({ path: p, dir: false });
    }
  };
  walk(top, 0);
  return out;
}

/** The server's V8 code cache for the node workers' large bundles (code-cache.ts writes it, workers read it). */
export function v8CodeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir();
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".cache");
  return path.join(base, "mcp-code-quality", "v8-code-cache");
}

/** Where go reads its own settings (`go env GOENV`): `$GOENV`, else `$XDG_CONFIG_HOME/go/env`; none when off. */
export function goEnvFilePath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.GOENV === "off") return undefined;
  if (env.GOENV && path.isAbsolute(env.GOENV)) return env.GOENV;
  const config =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir(), ".config");
  return path.join(config, "go", "env");
}

/** `NAME=VALUE` lines of Go's settings file (what `go env -w` writes); empty when there is none. */
export function readGoEnvFile(file: string): Record<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return {};
  }
  return parseGoEnvFile(text);
}

/** Go's settings file, read as go reads it (cmd/go/internal/cfg): `NAME=VALUE` lines whose name starts with an
 * upper-case letter, anything else skipped, the last of a name wins. */
export function parseGoEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq < 0 || !/^[A-Z]/.test(line)) continue;
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}
