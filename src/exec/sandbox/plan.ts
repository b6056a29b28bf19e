/**
 * The profile a process gets, from the call's kind and the tool's declared facts (tool-facts.ts, the same facts
 * tool_capabilities reports). Pure: the host's folders come in as HostLayout (host.ts gathers it).
 *
 * - read: the allowed roots read-only (lint, format check, type check, scans, audits, explain, inspection).
 * - write: the roots of the running transaction read-write, the other roots read-only.
 * - tests: the tested projects read-write (`writableRoots`; none when none is named), the other roots
 *   read-only; network kept unless cut (test suites talk to local services).
 * - provider: no root at all, only the requested files read-only, no scratch, no git, no shell.
 * Every kind: system folders and the server's install read-only, toolchains under $HOME read-only, a private
 * /tmp and an empty $HOME, and of the server's private folders only those the run's own command names.
 * Shared caches are read-write only for a run that executes no project code; a run that does (tests, build
 * scripts, plugins, a tool found inside the project) sees them read-only (filled beforehand by a step that runs
 * none, fill.ts) or gets a folder of its own per project at their path.
 */
import path from "node:path";
import { createHash } from "node:crypto";
import type { Mount, SandboxIds, SandboxProfile } from "./profile.js";
import type { ScratchBind } from "./scratch.js";
import { MANAGED_TOOL_FACTS, type ToolSandboxFacts } from "./tool-facts.js";

export type SandboxKind = "read" | "write" | "tests" | "provider";

export interface SandboxRequest {
  kind: SandboxKind;
  /** The allowed roots. */
  roots: readonly string[];
  /** Roots the running transaction writes (kind "write"), or the projects a test run tests (kind "tests"). */
  writableRoots?: readonly string[];
  /** Network for kinds whose network is the operator's choice (tests, provider); others follow the facts. */
  network?: boolean;
  /** Files a provider may read (kind "provider"). */
  files?: readonly string[];
  /** More folders shown read-only: a repository's git data above the allowed root, for git. */
  readOnly?: readonly string[];
  /** The server's own cache folders this run fills (mypy's per-project cache), shown read-write. */
  caches?: readonly string[];
  /** The server's private folders the run's command names (launch.ts finds them): the only ones shown. */
  scratch?: readonly ScratchBind[];
  /** The run's dependencies were put in place by its fill step (fill.ts offlineAfterFill): no network. */
  offline?: boolean;
  /** A fill step (fill.ts): it runs no project code, so the shared caches it fills are read-write. */
  fill?: boolean;
  /**
   * The tool runs the project's code only through a nested sandbox of its own (go test's test binaries, through
   * `-exec`; launch.ts), where the shared caches are read-only: the tool itself may write them.
   */
  nestedTests?: boolean;
}

/**
 * A cache folder of the host. In a run that executes no project code it is shared read-write; in one that does
 * it is `read-only` (a step that runs no project code fills it first, fill.ts) or `per-project` (a folder of
 * its own per project, bound at this path). `serverOnly`: written by the server alone, read-only for every tool.
 */
export interface CacheSpec {
  path: string;
  /** Names the per-project copies (`<perProjectCaches>/<name>/<project key>`). */
  name: string;
  withProjectCode: "read-only" | "per-project";
  serverOnly?: boolean;
}

/** What exists on this host, gathered once (host.ts). */
export interface HostLayout {
  system: readonly Mount[];
  home: string;
  /** The server's own install (dist, node_modules, .tools). */
  install: string;
  /** Where the install's top-level links lead, shown read-only with it (host.ts linkedFrom). */
  installLinked?: readonly string[];
  /** Paths under /proc shown read-only over the sandbox's own /proc (the kernel's settings, sysrq). */
  procReadOnly: readonly string[];
  /** The ids inside the sandbox when they are not the server's (root's server: 65534). */
  ids?: SandboxIds;
  /** Where a cache's per-project folders live on the host: `<perProjectCaches>/<name>/<project key>`. */
  perProjectCaches: string;
  /**
   * The server's private folders (its scratch root, the check daemon's folder with its secret and sockets,
   * its caches, its state and audit log): never shown to a tool, even under an allowed root that holds them.
   */
  serverPrivate?: readonly string[];
  /** Toolchains under $HOME that exist, by family ("common" for all). */
  toolchains: Readonly<Record<CacheFamily, readonly string[]>>;
  /**
   * Caches of a family, read-write for its tools that declare cache writes (or have no facts), whether or not
   * they exist yet: the launcher makes a missing one before the sandbox binds it.
   */
  caches: Readonly<Record<CacheFamily, readonly CacheSpec[]>>;
  /** A tool's own caches (by facts key: staticcheck's), for that tool alone, made when missing. */
  toolCaches?: Readonly<Record<string, readonly CacheSpec[]>>;
  /** Go's settings file (`go env -w`), read-only for the go family when it exists at launch. */
  goEnvFile?: string;
  /** Git's programs and the shells, hidden from a provider. */
  gitAndShells: readonly { path: string; dir: boolean }[];
  /**
   * Under /etc, what only its owner may read (a root server's: host.ts ownerOnlyUnder), hidden from every run
   * of the project's code (the tools themselves are trusted with what their user may read).
   */
  ownerOnly?: () => readonly { path: string; dir: boolean }[];
  /** util-linux's prlimit (system folder, so visible inside), for resource limits. */
  prlimit?: string;
  /** The GOCACHEPROG program that gives project code a build cache of its project's own (go-cache-overlay). */
  goCacheOverlay?: string;
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

export function familyOf(key: string): CacheFamily | undefined {
  if (["go", "govet", "staticcheck", "golint", "golangci-lint", "gosec", "gofmt"].includes(key)) return "go";
  if (["cargo", "clippy", "rustfmt", "rustc"].includes(key)) return "cargo";
  if (key === "npm") return "npm";
  if (key === "git") return "git";
  if (key === "node") return "node";
  return undefined;
}

/**
 * Whether the process may run code of the project (its tests, build scripts, configs and plugins), so that
 * what it writes must not reach another project's run: a test run, a tool that declares it (or has no facts),
 * and any tool whose executable lies inside an allowed root (a project's `.venv/bin/ruff` is the project's).
 * A fill step runs none (fill.ts keeps the project's own programs out of it).
 */
export function runsProjectCode(
  request: SandboxRequest,
  facts: ToolSandboxFacts | undefined,
  realExecutable: string,
): boolean {
  if (request.fill || request.nestedTests) return false;
  if (request.kind === "tests" || !facts || facts.runs_project_code) return true;
  return request.roots.some((root) => isUnder(realExecutable, root));
}

/**
 * Whether the process gets the network: the operator's choice for tests and providers; otherwise the facts
 * ("required": audits; "may": go and cargo, which fetch modules the project has not downloaded yet).
 */
export function networkFor(request: SandboxRequest, facts: ToolSandboxFacts | undefined): boolean {
  if (request.kind === "provider" || request.kind === "tests") return request.network ?? false;
  if (request.offline) return false;
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
  /** The project a per-project cache folder is kept for (launch.ts); the working directory by default. */
  project: string = cwd,
): SandboxProfile {
  const key = factsKeyOf(executable);
  const facts = factsOf(executable);
  const family = familyOf(key);
  const provider = request.kind === "provider";
  const projectCode = !provider && runsProjectCode(request, facts, realExecutable);
  const readOnly = new Set<string>([host.install, ...(host.installLinked ?? []), ...host.toolchains.common]);
  const readWrite = new Set<string>();
  const binds: { source: string; dest: string }[] = [];
  const caches = new Set<string>();
  const sharedReadOnly: string[] = [];
  const forTests: string[] = [];
  const optional = new Set<string>();
  let overlay: { own: string; value: string } | undefined;
  if (provider) {
    for (const p of host.toolchains.provider) readOnly.add(p);
    for (const f of request.files ?? []) readOnly.add(f);
  } else {
    if (family) for (const t of host.toolchains[family]) readOnly.add(t);
    if (family === "go" && host.goEnvFile) optional.add(host.goEnvFile);
    // Caches only for a tool that declares it fills one (gofmt and rustfmt get none).
    if (!facts || facts.writes.includes("cache")) {
      const specs = [...(family ? host.caches[family] : []), ...(host.toolCaches?.[key] ?? [])];
      for (const spec of specs) {
        if (spec.serverOnly) readOnly.add(spec.path);
        else if (!projectCode) readWrite.add(spec.path);
        else if (spec.withProjectCode === "read-only") {
          readOnly.add(spec.path);
          sharedReadOnly.push(spec.path);
        } else {
          const source = path.join(host.perProjectCaches, spec.name, projectKey(project));
          binds.push({ source, dest: spec.path });
          caches.add(source);
          continue;
        }
        caches.add(spec.path);
      }
    }
    for (const t of host.toolchains.git) readOnly.add(t);
    const writable = new Set(
      // No tested project found is no writable root, never every root (fail closed).
      request.kind === "tests"
        ? (request.writableRoots ?? [])
        : request.kind === "write"
          ? (request.writableRoots ?? [])
          : [],
    );
    for (const root of request.roots) (writable.has(root) ? readWrite : readOnly).add(root);
    for (const root of writable) readWrite.add(root);
    for (const p of request.readOnly ?? []) if (!readWrite.has(p)) readOnly.add(p);
    for (const c of request.caches ?? []) readWrite.add(c);
    for (const s of request.scratch ?? []) (s.access === "read-write" ? readWrite : readOnly).add(s.path);
    if (request.nestedTests)
      forTests.push(...[...caches].filter((c) => readWrite.has(c) && !binds.some((b) => b.source === c)));
    // Project code that runs the go command (a test's `go tool nm`): the shared build cache read through,
    // what it puts kept in a folder of the project's own.
    if (family === "go" && (projectCode || request.nestedTests)) {
      overlay = goCacheOverlayOf(host, project, caches);
      if (overlay) {
        readWrite.add(overlay.own);
        caches.add(overlay.own);
      }
    }
  }
  const visible = (p: string) =>
    host.system.some((m) => isUnder(p, m.path)) ||
    [...readOnly, ...readWrite, ...binds.map((b) => b.dest)].some((r) => isUnder(p, r));
  // The executable must be visible: a tool installed elsewhere brings its own prefix, read-only.
  for (const exe of [executable, realExecutable]) {
    const prefix = prefixOf(exe);
    if (prefix && !visible(exe) && !isTooBroad(prefix, host)) readOnly.add(prefix);
  }
  // The working directory is the server's choice (a project folder, a scratch copy): shown read-only when
  // nothing else shows it.
  if (!provider && !visible(cwd) && !isTooBroad(cwd, host)) readOnly.add(cwd);
  // No bind shows a server's private folder, or anything in one, but what the server itself chose for this
  // run (its command's scratch folders, its caches): an allowed root, a git dir a project's `.git` file
  // names, a working folder or a tool's prefix there is left out. A forged `.git` file had git's sandbox bind
  // the check daemon's folder (its secret) and /root exactly, which `masked` below, covering only what lies
  // under a shown folder, let through.
  const serverChosen = new Set<string>([
    ...(request.scratch ?? []).map((s) => s.path),
    ...(request.caches ?? []),
    ...caches,
  ]);
  const isPrivate = (p: string) => (host.serverPrivate ?? []).some((priv) => isUnder(p, priv));
  for (const set of [readOnly, readWrite])
    for (const p of set) if (isPrivate(p) && !serverChosen.has(p)) set.delete(p);
  const setenv: Record<string, string> = {};
  if (overlay && projectCode) setenv.GOCACHEPROG = overlay.value;
  // An allowed root /tmp shown read-only covers the run's private /tmp: its temp folder is then a private
  // one elsewhere (launch.ts names it in TMPDIR).
  const covering = (p: string, folders: Iterable<string>) => [...folders].some((r) => isUnder(p, r));
  const tmpHidden = covering("/tmp", readOnly) && !covering("/tmp", readWrite);
  // An allowed root that holds the server's private folders (`--allowed-paths /tmp`: its scratch root
  // /tmp/mcq-<uid> and the daemon's folder) would show them whole: each is covered by an empty one, and only
  // what this run's command names is bound again over it (deeper binds are mounted after).
  const shown = [...readOnly, ...readWrite, ...binds.map((b) => b.dest)];
  const masked = (host.serverPrivate ?? []).filter(
    (p) => shown.some((r) => p !== r && isUnder(p, r)) && !shown.includes(p),
  );
  const privateTmp =
    tmpHidden && !covering(PRIVATE_TMP, [...readOnly, ...readWrite]) ? PRIVATE_TMP : undefined;
  return {
    system: host.system,
    procReadOnly: host.procReadOnly,
    ...(host.ids ? { ids: host.ids } : {}),
    readOnly: [...readOnly].filter((p) => !readWrite.has(p)),
    readWrite: [...readWrite],
    ...(binds.length ? { binds } : {}),
    home: host.home,
    network: networkFor(request, facts),
    hidden: [...(projectCode ? (host.ownerOnly?.() ?? []) : []), ...(provider ? host.gitAndShells : [])],
    cwd: provider ? "/tmp" : cwd,
    runsProjectCode: projectCode,
    ...(caches.size ? { caches: [...caches] } : {}),
    ...(sharedReadOnly.length ? { readOnlyCaches: sharedReadOnly } : {}),
    ...(forTests.length ? { readOnlyForTests: forTests } : {}),
    ...(privateTmp ? { privateTmp } : {}),
    ...(masked.length ? { masked } : {}),
    ...(Object.keys(setenv).length ? { setenv } : {}),
    ...(overlay && request.nestedTests ? { setenvForTests: { GOCACHEPROG: overlay.value } } : {}),
    ...(optional.size ? { readOnlyIfPresent: [...optional] } : {}),
  };
}

/**
 * GOCACHEPROG for project code that runs the go command: go-cache-overlay reading Go's shared build cache (which
 * such code sees read-only: another project's build reads it) and keeping what the go command puts in
 * `<perProjectCaches>/go-build-own/<project key>`. Undefined without the program, without the shared cache
 * in this profile, or when a path has a space or quote (GOCACHEPROG is split on them).
 */
export function goCacheOverlayOf(
  host: HostLayout,
  project: string,
  caches: ReadonlySet<string>,
): { own: string; value: string } | undefined {
  const shared = host.caches.go.find((c) => c.name === "go-build")?.path;
  if (!host.goCacheOverlay || !shared || !caches.has(shared)) return undefined;
  const own = path.join(host.perProjectCaches, "go-build-own", projectKey(project));
  const fields = [host.goCacheOverlay, "-shared", shared, "-own", own];
  if (fields.some((f) => /[\s'"\\]/.test(f))) return undefined;
  return { own, value: fields.join(" ") };
}

/** The run's private temp folder when an allowed root shown read-only covers /tmp (TMPDIR names it). */
export const PRIVATE_TMP = "/run/mcq-tmp";

/** A project's folder name among a cache's per-project folders. */
export function projectKey(project: string): string {
  return createHash("sha256").update(project).digest("hex").slice(0, 20);
}

/** `<prefix>/bin/<tool>` -> `<prefix>`; any other -> its folder. */
export function prefixOf(executable: string): string | undefined {
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
