/** What this host has where (system folders, toolchains and caches under $HOME), gathered once per process. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Mount } from "./profile.js";
import type { CacheFamily, HostLayout } from "./plan.js";
import { scratchRoot } from "./scratch.js";
import { PACKAGE_ROOT } from "../../package-root.js";

const SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix"];
const SHELLS = ["sh", "bash", "dash", "rbash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "busybox"];

let layout: HostLayout | undefined;

/** The server's package folder. */
export function installDir(): string {
  return PACKAGE_ROOT;
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
  const gopath = abs(env.GOPATH?.split(":")[0]) ?? h("go");
  const cargoHome = abs(env.CARGO_HOME) ?? h(".cargo");
  const existing = (paths: (string | undefined)[]) => [
    ...new Set(paths.filter((p): p is string => p !== undefined && fs.existsSync(p))),
  ];
  const v8Cache = path.join(xdgCache, "mcp-code-quality", "v8-code-cache");
  fs.mkdirSync(v8Cache, { recursive: true, mode: 0o700 });
  const none: readonly string[] = [];
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
  const caches: Record<CacheFamily, readonly string[]> = {
    common: none,
    go: existing([
      abs(env.GOCACHE) ?? path.join(xdgCache, "go-build"),
      abs(env.GOMODCACHE) ?? path.join(gopath, "pkg", "mod"),
    ]),
    cargo: existing([path.join(cargoHome, "registry"), path.join(cargoHome, "git")]),
    npm: existing([h(".npm")]),
    git: none,
    node: existing([v8Cache]),
    provider: none,
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
    home,
    install: installDir(),
    scratch: scratchRoot(),
    toolchains,
    caches,
    gitAndShells: hidden,
    prlimit: ["/usr/bin/prlimit", "/bin/prlimit"].find((p) => fs.existsSync(p)),
  };
}
