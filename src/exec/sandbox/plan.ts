/**
 * The profile a process gets, from the call's kind and the tool's declared facts (tool-facts.ts, the same facts
 * tool_capabilities reports). Pure: the host's folders come in as HostLayout (host.ts gathers it).
 *
 * - read: the allowed roots read-only (lint, format check, type check, scans, audits, explain, inspection).
 * - write: the roots of the running transaction read-write, the other roots read-only.
 * - tests: the roots read-write; network kept unless cut (test suites talk to local services).
 * - provider: no root at all, only the requested files read-only, no scratch, no git, no shell.
 * Every kind: system folders and the server's install read-only, toolchains under $HOME read-only, a private
 * /tmp and an empty $HOME; declared caches read-write only for the tools that fill them.
 */
import path from "node:path";
import type { Mount, SandboxProfile } from "./profile.js";
import { MANAGED_TOOL_FACTS, type ToolSandboxFacts } from "./tool-facts.js";

export type SandboxKind = "read" | "write" | "tests" | "provider";

export interface SandboxRequest {
  kind: SandboxKind;
  /** The allowed roots. */
  roots: readonly string[];
  /** Roots the running transaction writes (kind "write"). */
  writableRoots?: readonly string[];
  /** Network for kinds whose network is the operator's choice (tests, provider); others follow the facts. */
  network?: boolean;
  /** Files a provider may read (kind "provider"). */
  files?: readonly string[];
  /** More folders shown read-only: a repository's git data above the allowed root, for git. */
  readOnly?: readonly string[];
  /** The server's own cache folders this run fills (mypy's per-project cache), shown read-write. */
  caches?: readonly string[];
}

/** What exists on this host, gathered once (host.ts). */
export interface HostLayout {
  system: readonly Mount[];
  home: string;
  /** The server's own install (dist, node_modules, .tools). */
  install: string;
  /** The per-user 0700 scratch folder (server-made copies, cargo's target dir, daemon state). */
  scratch: string;
  /** Toolchains under $HOME that exist, by family ("common" for all). */
  toolchains: Readonly<Record<CacheFamily, readonly string[]>>;
  /**
   * Caches of a family, read-write for its tools that declare cache writes (or have no facts), whether or not
   * they exist yet: the launcher makes a missing one before the sandbox binds it.
   */
  caches: Readonly<Record<CacheFamily, readonly string[]>>;
  /** A tool's own caches (by facts key: staticcheck's), read-write for that tool alone, made when missing. */
  toolCaches?: Readonly<Record<string, readonly string[]>>;
  /** Go's settings file (`go env -w`), read-only for the go family when it exists at launch. */
  goEnvFile?: string;
  /** Git's programs and the shells, hidden from a provider. */
  gitAndShells: readonly { path: string; dir: boolean }[];
  /** util-linux's prlimit (system folder, so visible inside), for resource limits. */
  prlimit?: string;
}

export type CacheFamily = "common" | "go" | "cargo" | "npm" | "git" | "node" | "provider";

/** The facts key of an executable: its name, with the aliases the adapters run under. */
export function factsKeyOf(executable: string): string {
  const base = path.basename(executable).replace(/\.(js|cjs|mjs|exe)$/, "");
  const aliases: Record<string, string> = {
    dmypy: "mypy",
    uv: "pip-audit",
    "cargo-clippy": "clippy",
    "clippy-driver": "clippy",
    rubocop: "rubocop",
    "pyright-langserver": "pyright",
  };
  return aliases[base] ?? base;
}

export function factsOf(executable: string): ToolSandboxFacts | undefined {
  const key = factsKeyOf(executable);
  return Object.hasOwn(MANAGED_TOOL_FACTS, key) ? MANAGED_TOOL_FACTS[key] : undefined;
}

function familyOf(key: string): CacheFamily | undefined {
  if (["go", "govet", "staticcheck", "golint", "gosec", "gofmt"].includes(key)) return "go";
  if (["cargo", "clippy", "rustfmt", "rustc"].includes(key)) return "cargo";
  if (key === "npm") return "npm";
  if (key === "git") return "git";
  if (key === "node") return "node";
  return undefined;
}

/**
 * Whether the process gets the network: the operator's choice for tests and providers; otherwise the facts
 * ("required": audits; "may": go and cargo, which fetch modules the project has not downloaded yet).
 */
export function networkFor(request: SandboxRequest, facts: ToolSandboxFacts | undefined): boolean {
  if (request.kind === "provider" || request.kind === "tests") return request.network ?? false;
  return facts !== undefined && facts.network !== "none";
}

/** The profile for `executable` run at `cwd` under `request`. */
export function planProfile(
  host: HostLayout,
  request: SandboxRequest,
  executable: string,
  cwd: string,
  /** The executable with its links resolved, when that differs. */
  realExecutable: string = executable,
): SandboxProfile {
  const key = factsKeyOf(executable);
  const facts = factsOf(executable);
  const family = familyOf(key);
  const provider = request.kind === "provider";
  const readOnly = new Set<string>([host.install, ...host.toolchains.common]);
  const readWrite = new Set<string>();
  const caches = new Set<string>();
  const optional = new Set<string>();
  if (provider) {
    for (const p of host.toolchains.provider) readOnly.add(p);
    for (const f of request.files ?? []) readOnly.add(f);
  } else {
    readWrite.add(host.scratch);
    if (family) for (const t of host.toolchains[family]) readOnly.add(t);
    if (family === "go" && host.goEnvFile) optional.add(host.goEnvFile);
    // Caches only for a tool that declares it fills one (gofmt and rustfmt get none).
    if (!facts || facts.writes.includes("cache")) {
      for (const c of family ? host.caches[family] : []) caches.add(c);
      for (const c of host.toolCaches?.[key] ?? []) caches.add(c);
    }
    for (const c of caches) readWrite.add(c);
    for (const t of host.toolchains.git) readOnly.add(t);
    const writable = new Set(
      request.kind === "tests"
        ? request.roots
        : request.kind === "write"
          ? (request.writableRoots ?? [])
          : [],
    );
    for (const root of request.roots) (writable.has(root) ? readWrite : readOnly).add(root);
    for (const root of writable) readWrite.add(root);
    for (const p of request.readOnly ?? []) if (!readWrite.has(p)) readOnly.add(p);
    for (const c of request.caches ?? []) readWrite.add(c);
  }
  const visible = (p: string) =>
    host.system.some((m) => isUnder(p, m.path)) || [...readOnly, ...readWrite].some((r) => isUnder(p, r));
  // The executable must be visible: a tool installed elsewhere brings its own prefix, read-only.
  for (const exe of [executable, realExecutable]) {
    const prefix = prefixOf(exe);
    if (prefix && !visible(exe) && !isTooBroad(prefix, host)) readOnly.add(prefix);
  }
  // The working directory is the server's choice (a project folder, a scratch copy): shown read-only when
  // nothing else shows it.
  if (!provider && !visible(cwd) && !isTooBroad(cwd, host)) readOnly.add(cwd);
  return {
    system: host.system,
    readOnly: [...readOnly].filter((p) => !readWrite.has(p)),
    readWrite: [...readWrite],
    home: host.home,
    network: networkFor(request, facts),
    hidden: provider ? host.gitAndShells : [],
    cwd: provider ? "/tmp" : cwd,
    ...(caches.size ? { caches: [...caches] } : {}),
    ...(optional.size ? { readOnlyIfPresent: [...optional] } : {}),
  };
}

/** `<prefix>/bin/<tool>` -> `<prefix>`; any other -> its folder. */
function prefixOf(executable: string): string | undefined {
  if (!path.isAbsolute(executable)) return undefined;
  const dir = path.dirname(executable);
  return path.basename(dir) === "bin" ? path.dirname(dir) : dir;
}

function isTooBroad(p: string, host: HostLayout): boolean {
  return p === "/" || p === "/tmp" || p === host.home || p === path.dirname(host.home);
}

function isUnder(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`);
}
