/**
 * The input set of a whole-program tool, by language: every source and config file of the project the
 * target belongs to (its nearest folder with the language's project marker, within the allowed root),
 * the lock files, and for Python the installed packages (each virtualenv's site-packages listing, whose
 * `*.dist-info` names carry versions). What the tool reads beyond this (the toolchain, a global cache) is
 * in its identity (version, environment variables that change its results).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ResultCache } from "../cache/result-cache.js";
import { ALWAYS_SKIPPED } from "../paths/tree-scan.js";
import { isWithin } from "../paths/allowlist.js";
import { RUFF_DEFAULT_EXCLUDES } from "./python/python-files.js";
import { runWhole } from "../cache/whole.js";
import { ancestorInputs } from "./ancestor-inputs.js";
import { gitExcludesKey } from "./git-excludes.js";
import { mergeClosures, type Closure, type ClosureSpec } from "../cache/closure.js";
import { relativeKey } from "../cache/rel-key.js";
import type { ToolContext } from "../engine/tool.js";
import { goEnvFilePath, readGoEnvFile } from "../exec/sandbox/host.js";
import { findExecutable } from "../exec/which.js";
import { InFlight } from "../exec/in-flight.js";
import { executableIdentity, nodeModulesState } from "./cached-run.js";
import { resolvePythonTool } from "./python/resolve.js";
import { cachedVersion } from "./tool-version.js";
import { findTypeChecker } from "./type-checkers.js";
import { IMPORT_PATH_CONFIGS } from "./python/import-paths.js";
import { insideRoots } from "../cache/closure.js";
import {
  beyondWalk,
  cargoClosure,
  goClosure,
  nothingBeforeTheRun,
  pythonClosure,
  type InputRule,
  type SitePackages,
} from "./whole-closure.js";

export type WholeLanguage = "python" | "typescript" | "go" | "rust";

interface LanguageSpec {
  markers: string[];
  files: RegExp;
  skip: Set<string>;
  env: string[];
  /** The files that decide what the toolchain reads beyond the project (its closure). */
  manifests?: RegExp;
  /** Folders of each folder above the project whose files the toolchain looks up too (cargo's `.cargo`). */
  ancestorDirs?: string[];
}

const SPEC: Record<WholeLanguage, LanguageSpec> = {
  python: {
    markers: [
      "pyproject.toml",
      "setup.cfg",
      "setup.py",
      "mypy.ini",
      ".mypy.ini",
      "pyrightconfig.json",
      "ty.toml",
    ],
    files:
      /\.pyi?$|^(?:pyproject\.toml|setup\.cfg|setup\.py|mypy\.ini|\.mypy\.ini|pyrightconfig\.json|ty\.toml|requirements[\w.-]*\.txt|uv\.lock|poetry\.lock|Pipfile\.lock|py\.typed)$/,
    skip: new Set([...RUFF_DEFAULT_EXCLUDES, "__pycache__"]),
    env: ["PYTHONPATH", "MYPYPATH", "VIRTUAL_ENV"],
    manifests: IMPORT_PATH_CONFIGS,
  },
  typescript: {
    markers: ["tsconfig.json", "package.json"],
    files:
      /\.(?:[cm]?[jt]sx?|json)$|^(?:package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?)$/,
    skip: new Set(["dist", "build", "coverage"]),
    env: ["NODE_OPTIONS"],
    manifests: /^(?:tsconfig[\w.-]*\.json|package\.json)$/,
  },
  go: {
    markers: ["go.work", "go.mod"],
    files: /\.(?:go|s|c|h)$|^(?:go\.mod|go\.sum|go\.work|go\.work\.sum)$/,
    skip: new Set<string>(),
    env: ["GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT", "GOWORK"],
    manifests: /^go\.(?:mod|work)$/,
  },
  rust: {
    markers: ["Cargo.toml"],
    files:
      /\.rs$|^(?:Cargo\.toml|Cargo\.lock|build\.rs|rust-toolchain(?:\.toml)?|config(?:\.toml)?|clippy\.toml|\.clippy\.toml|rustfmt\.toml|\.rustfmt\.toml)$/,
    skip: new Set(["target"]),
    env: ["RUSTFLAGS", "CARGO_BUILD_TARGET", "CARGO_TARGET_DIR", "RUSTC_WRAPPER", "RUSTUP_TOOLCHAIN"],
    manifests: /^Cargo\.toml$/,
    ancestorDirs: [".cargo"],
  },
};

/**
 * Files that may configure a tool, whatever the language: dotfiles (`.flake8`, `.golangci.yml`) and
 * TOML, INI, CFG, CONF and YAML files (`tox.ini`, `staticcheck.conf`, `clippy.toml`). A few more inputs
 * than the tool reads only cost a miss now and then; one fewer would serve a stale result.
 */
const CONFIG_LIKE = /^\.[\w.-]+$|\.(?:toml|ini|cfg|conf|ya?ml)$/;

/**
 * The folders with a marker from the target up to `root`: the outermost is the project the target belongs
 * to (its inputs), the innermost the one the toolchain runs in (a nested Cargo workspace or Go module,
 * whose own manifest decides what it reads beyond the project). Both the target's folder when none has one.
 */
function projectDirs(
  target: string,
  root: string,
  markers: readonly string[],
): { outermost: string; innermost: string } {
  const start = fs.statSync(target, { throwIfNoEntry: false })?.isDirectory() ? target : path.dirname(target);
  let outermost: string | undefined;
  let innermost: string | undefined;
  for (let d = start; isWithin(root, d); d = path.dirname(d)) {
    if (markers.some((m) => fs.existsSync(path.join(d, m)))) {
      outermost = d;
      innermost ??= d;
    }
    if (d === root || d === path.dirname(d)) break;
  }
  return { outermost: outermost ?? start, innermost: innermost ?? start };
}

export interface WholeInputs {
  project: string;
  /** The innermost project holding the target, where the toolchain resolves its closure (within `project`). */
  own: string;
  files: string[];
  /** Environment and installed-package facts the key also holds. */
  facts: unknown;
  /** Python: each virtualenv's site-packages under the project, with its names. */
  sites: SitePackages[];
}

export function wholeProgramInputs(
  cache: ResultCache,
  language: WholeLanguage,
  target: string,
  root: string,
): WholeInputs {
  const spec = SPEC[language];
  const { outermost: project, innermost: own } = projectDirs(target, root, spec.markers);
  const walk = cache.tree.walk(
    project,
    (name, abs) => ALWAYS_SKIPPED.has(name) || spec.skip.has(name) || (language === "python" && isVenv(abs)),
  );
  const names = inputFiles(spec);
  // Links too: the tools read through them (their key is their target's: file-hashes.ts); a link to a
  // folder whatever its name (ty resolves `import pkg.a` through a linked `pkg`: keyed by its contents).
  const files = [
    ...walk.files.filter((f) => names.test(path.basename(f))),
    ...walk.links.filter((f) => names.test(path.basename(f)) || isFolder(f)),
    // What the tools look up in the folders above the project (a parent rustfmt.toml, .cargo/config.toml,
    // .gitignore), up to the allowed root.
    ...ancestorInputs(cache.tree, project, root, names, spec.ancestorDirs),
  ];
  const facts: Record<string, unknown> = {
    env: spec.env.map((v) => process.env[v] ?? null),
    // git's own excludes (`.git/info/exclude`, the global excludes file): ty walks as git does.
    gitExcludes: gitExcludesKey(project, root),
  };
  const sites = language === "python" ? sitePackages(cache, project) : [];
  if (language === "python")
    facts.sitePackages = sites.map((s) => [relativeKey(project, s.site), ...s.names]);
  // The installed packages a TypeScript program reads (`@types/*`, each dependency's typings): what the
  // package manager installed, by the names in each node_modules and its own record of the install.
  if (language === "typescript") facts.nodeModules = nodeModulesState(cache, project, root);
  // Settings the toolchain reads from the user's home, which the sandbox shows it: go's own file
  // (`go env -w GOFLAGS=...`); cargo's config in $CARGO_HOME (`[build] rustflags`, `[target.*]`) and rustup's
  // settings (the default toolchain, `rustup override set` per folder), which pick the toolchain.
  if (language === "go") {
    const file = goEnvFilePath();
    facts.goEnvFile = file ? readGoEnvFile(file) : null;
  }
  if (language === "rust") facts.rustHomeSettings = rustHomeSettings();
  return { project, own, files, facts, sites };
}

/**
 * The text of $CARGO_HOME's config files (`config.toml`, and `config`, its older name) and of rustup's
 * `settings.toml`; null where absent.
 */
export function rustHomeSettings(env: NodeJS.ProcessEnv = process.env): (string | null)[] {
  const home = (name: string, fallback: string) => {
    const v = env[name];
    return v && path.isAbsolute(v) ? v : path.join(os.homedir(), fallback);
  };
  const cargo = home("CARGO_HOME", ".cargo");
  const files = [
    path.join(cargo, "config.toml"),
    path.join(cargo, "config"),
    path.join(home("RUSTUP_HOME", ".rustup"), "settings.toml"),
  ];
  return files.map((file) => {
    try {
      return fs.readFileSync(file, "utf8");
    } catch {
      return null;
    }
  });
}

/** Whether `file` (a link) leads to a folder. */
function isFolder(file: string): boolean {
  return fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

function isVenv(dir: string): boolean {
  return fs.existsSync(path.join(dir, "pyvenv.cfg"));
}

/** Each virtualenv's site-packages under the project (`.venv`, `venv`, or any with pyvenv.cfg), and its names. */
function sitePackages(cache: ResultCache, project: string): SitePackages[] {
  const out: SitePackages[] = [];
  for (const e of cache.tree.entries(project) ?? []) {
    if (e.kind !== "dir") continue;
    const lib = path.join(project, e.name, "lib");
    if (!isVenv(path.join(project, e.name))) continue;
    for (const py of cache.tree.entries(lib) ?? []) {
      const site = path.join(lib, py.name, "site-packages");
      out.push({ site, names: (cache.tree.entries(site) ?? []).map((x) => x.name) });
    }
  }
  return out;
}

/** Placeholder for the project root in stored values: another checkout (or machine) puts its own back. */
const ROOT_MARK = "⟦project root⟧";

export function rootRelative(value: unknown, root: string): unknown {
  return JSON.parse(JSON.stringify(value).split(JSON.stringify(root).slice(1, -1)).join(ROOT_MARK));
}

export function rootAbsolute<T>(stored: unknown, root: string): T {
  return JSON.parse(JSON.stringify(stored).split(ROOT_MARK).join(JSON.stringify(root).slice(1, -1))) as T;
}

/** Notes that describe one run's processes (a worker's or daemon's pid), left out of a cached result. */
export const RUN_NOTE = /\bpid \d+/;

/** Arguments that shape only the view of a result (paging, budgets, SARIF), not what the tool says. */
const VIEW_ARGS = new Set(["output", "max_result_tokens", "cursor", "page", "page_size", "context_lines"]);

/** A call's arguments as part of a key: view-only ones left out, paths under the root made relative. */
export function keyArgs(args: Record<string, unknown>, root: string): unknown {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) if (!VIEW_ARGS.has(k)) out[k] = v;
  return rootRelative(out, root);
}

export interface WholeCall<T> {
  ctx: ToolContext;
  cache: ResultCache;
  /** The tool (and what it does): "type_check ty", "lint govet". */
  kind: string;
  language: WholeLanguage;
  target: string;
  root: string;
  /** The tool's identity beyond the inputs: executable and version, arguments. */
  identity: unknown;
  run(): Promise<T>;
  keep?(value: T): boolean;
  /** Takes the run-describing notes out of a cached value. */
  onHit?(value: T): T;
  /**
   * What a run reports it read (tsc: its config chain and sources; what the project's walk keys already
   * is dropped after), given which files the server may read; taken out of the value before it is stored
   * or returned.
   */
  reads?(
    value: T,
    rule: InputRule,
    readable: (file: string) => boolean,
  ): { value: T; read: Closure | undefined };
  /** What the tool reads because of its own configuration (LinterAdapter.closure), beside the toolchain's. */
  toolClosure?: ClosureSpec;
}

/**
 * The toolchain's closures being resolved: the calls on one project at once (cargo check and clippy of a crate
 * and of the crates below it, golangci-lint and go build) share one `cargo metadata` or `go env`, by what it
 * depends on (the language, the project, its manifests' hashes, the environment), not by tool.
 */
const toolchainClosures = new InFlight<Closure>();

/**
 * The closure of a whole-program call: what the toolchain reads beyond the project, by language, and what
 * the tool reads because of its own configuration (`toolClosure`), resolved and remembered as one.
 */
function closureSpec<T>(call: WholeCall<T>, inputs: WholeInputs): ClosureSpec | undefined {
  const spec = SPEC[call.language];
  const own = call.toolClosure;
  if (!spec.manifests) return own;
  const rule: InputRule = { files: inputFiles(spec), skip: spec.skip };
  const manifests = inputs.files
    .filter((f) => spec.manifests?.test(path.basename(f)))
    .map((f) => [relativeKey(call.root, f), call.cache.hashes.hashOf(f, true) ?? null]);
  const id = {
    kind: call.kind,
    tool: call.identity,
    language: call.language,
    project: relativeKey(call.root, inputs.project),
    // Where the toolchain resolves it (not `own`: the tool's own closure's id below).
    at: relativeKey(call.root, inputs.own),
    manifests,
    env: spec.env.map((v) => process.env[v] ?? null),
    // A new .pth file (an editable install) in a virtualenv: resolved again.
    facts: call.language === "python" ? inputs.facts : null,
    ...(own && { own: own.id }),
  };
  // Resolved where the tool runs: a nested module's or workspace's own go.mod or Cargo.toml names what it
  // reads, which the outer project's may not (a path dependency beside the outer project).
  const resolveToolchain =
    call.language === "go"
      ? goClosure(call.ctx, inputs.own, inputs.project, rule)
      : call.language === "rust"
        ? cargoClosure(call.ctx, inputs.own, inputs.project, rule)
        : call.language === "python"
          ? pythonClosure(inputs.own, inputs.files, inputs.sites, rule)
          : nothingBeforeTheRun([]);
  const shared = JSON.stringify([call.language, inputs.project, inputs.own, manifests, id.env, id.facts]);
  const toolchain = () => toolchainClosures.join(shared, resolveToolchain).result;
  const merged = own ? async () => mergeClosures(await toolchain(), await own.resolve()) : toolchain;
  // One rule for every closure: what the project's walk keys already is left out, nothing else.
  const resolve = async () => beyondWalk(await merged(), inputs.project, rule);
  return { id, resolve };
}

/** The files of a folder that are a language's inputs (as in the project: sources and configs). */
function inputFiles(spec: LanguageSpec): RegExp {
  return new RegExp(`${spec.files.source}|${CONFIG_LIKE.source}`);
}

/**
 * A whole-program call through the result cache; `cache` says how many input files the key covered (and,
 * when the result could not be stored, why).
 */
export async function cachedWholeCall<T>(
  call: WholeCall<T>,
): Promise<{ value: T; cache: { cached: number; total: number; uncached?: string } }> {
  const inputs = wholeProgramInputs(call.cache, call.language, call.target, call.root);
  const spec = SPEC[call.language];
  const rule: InputRule = { files: inputFiles(spec), skip: spec.skip };
  const reads = new WeakMap<object, Closure | undefined>();
  const outcome = await runWhole<T>({
    cache: call.cache,
    kind: call.kind,
    identity: {
      tool: call.identity,
      facts: inputs.facts,
      project: path.relative(call.root, inputs.project),
      // Where the tool ran: the project is the outermost folder with a marker, and a run below it answers
      // for its own folder (cargo fmt in a nested workspace, or in one member crate, is not the root's).
      target: relativeKey(call.root, call.target),
    },
    root: call.root,
    inputs: inputs.files,
    closure: closureSpec(call, inputs),
    async run() {
      const value = await call.run();
      if (!call.reads) return value;
      const { value: kept, read } = call.reads(value, rule, (f) => insideRoots(call.cache, f));
      reads.set(kept as object, read && beyondWalk(read, inputs.project, rule));
      return kept;
    },
    reads: (v) => reads.get(v as object),
    keep: call.keep,
    encode: (v, root) => rootRelative(v, root),
    decode: (s, root) => rootAbsolute<T>(s, root),
  });
  const value = outcome.hit && call.onHit ? call.onHit(outcome.value) : outcome.value;
  return {
    value,
    cache: {
      cached: outcome.hit ? outcome.total : 0,
      total: outcome.total,
      ...(outcome.uncached && { uncached: outcome.uncached }),
    },
  };
}

/** The program behind a tool name (undefined: bundled with the server, which the build id covers). */
const PROGRAM: Record<string, { program: string; versionArgs: string[]; python?: boolean } | undefined> = {
  ty: { program: "ty", versionArgs: ["--version"], python: true },
  mypy: { program: "mypy", versionArgs: ["--version"], python: true },
  flake8: { program: "flake8", versionArgs: ["--version"], python: true },
  go: { program: "go", versionArgs: ["version"] },
  govet: { program: "go", versionArgs: ["version"] },
  staticcheck: { program: "staticcheck", versionArgs: ["-version"] },
  golint: { program: "golint", versionArgs: [] },
  "golangci-lint": { program: "golangci-lint", versionArgs: ["version", "--short"] },
  cargo: { program: "cargo", versionArgs: ["--version"] },
  clippy: { program: "cargo", versionArgs: ["clippy", "--version"] },
};

/**
 * Which executable a tool call runs and its version (asked once per server), for the key; a checker that
 * runs either the project's own copy or the bundled one (tsc) says which, with its version.
 */
export async function toolIdentity(
  ctx: ToolContext,
  name: string,
  target: string,
  config?: string,
): Promise<unknown> {
  const declared = findTypeChecker(name)?.identity;
  if (declared) return { name, runs: await declared(ctx, { target, config }) };
  const spec = PROGRAM[name];
  const pyright = name === "pyright" ? resolvePythonTool(ctx, "pyright", target).executable : undefined;
  if (!spec && !pyright) return { name, bundled: true, PATH: process.env.PATH ?? null };
  const program = spec?.program ?? "pyright";
  const executable =
    spec?.python || pyright ? resolvePythonTool(ctx, program, target).executable : findExecutable(program);
  const version = executable && spec ? await cachedVersion(ctx, executable, spec.versionArgs) : undefined;
  const root = ctx.allowlist.rootOf(target) ?? undefined;
  return {
    name,
    executable: executableIdentity(executable, version, root),
  };
}

/** The whole-program language of a tool's languages (undefined: not one of them). */
export function wholeLanguageOf(languages: readonly string[]): WholeLanguage | undefined {
  if (languages.includes("python")) return "python";
  if (languages.includes("typescript") || languages.includes("javascript")) return "typescript";
  if (languages.includes("go")) return "go";
  if (languages.includes("rust")) return "rust";
  return undefined;
}
