/**
 * What a whole-program tool reads beyond its project folder, as the toolchain resolves it (the result
 * cache's configuration closure, src/cache/closure.ts):
 * - Go: the workspace file `go env GOWORK` names, the modules it `use`s, and every local `replace` target
 *   of go.work and of each module's go.mod (`go work edit -json`, `go mod edit -json`: parsed by go, with
 *   no network and no module download);
 * - Rust: each path dependency of the workspace's packages, and theirs (`cargo metadata --no-deps`);
 * - Python: the folders the project's configs put on the type checkers' import path (`mypy_path`,
 *   pyright's `extraPaths`, ty's `extra-paths`), and MYPYPATH's and PYTHONPATH's; the mypy plugins they
 *   name; what each virtualenv's `.pth` and editable finder files put on the import path;
 * - TypeScript: what the run itself reports (the tsconfig's `extends` chain, its project references'
 *   configs, the program's sources and `include` folders outside the project), learnt from each run (see
 *   WholeJob.reads).
 * Each is resolved where the tool runs: a nested Go module's or Cargo workspace's own manifest, not only
 * the outer project's.
 * The folders found are read as the project is (their sources and configs by content). Each resolution is
 * remembered with the manifests that decided it and runs again only when one changes.
 */
import fs from "node:fs";
import path from "node:path";
import type { Closure, ClosureDir, ClosureSpec } from "../cache/closure.js";
import type { ToolContext } from "../engine/tool.js";
import { isWithin } from "../paths/allowlist.js";
import { ALWAYS_SKIPPED } from "../paths/tree-scan.js";
import { GO_ENV, goBinDirs } from "./go/go-env.js";
import {
  configuredImportPaths,
  configuredPluginFiles,
  envImportPaths,
  IMPORT_PATH_CONFIGS,
} from "./python/import-paths.js";
import { sitePathsOf } from "./python/site-paths.js";

/** The files of a folder that are inputs, and the folders not walked: as for the project itself. */
export interface InputRule {
  files: RegExp;
  skip: ReadonlySet<string>;
}

/** Most folders a closure follows (path dependencies of path dependencies...). */
const MAX_DIRS = 64;

/** Folders as closure folders read by `rule`. */
function closureDirs(dirs: Iterable<string>, rule: InputRule): ClosureDir[] {
  return [...new Set(dirs)].map((d) => ({ dir: d, names: rule.files.source, skip: [...rule.skip] }));
}

/** The folders of `dirs` inside none of the others (a folder's walk holds its sub-folders'). */
function outermost(dirs: readonly ClosureDir[]): ClosureDir[] {
  const out = new Map<string, ClosureDir>();
  for (const d of [...dirs].sort((a, b) => a.dir.length - b.dir.length))
    if (![...out.keys()].some((o) => isWithin(o, d.dir))) out.set(d.dir, d);
  return [...out.values()];
}

/**
 * Whether the project's own input walk reaches a path (so its content is keyed already): inside `project`,
 * under no folder the walk skips (ALWAYS_SKIPPED, the language's `skip`: `build`, `dist`, `target`; a
 * virtualenv) and, for a file, of a kind the walk keeps. Each folder is looked at once per coverage.
 */
export function walkCoverage(project: string, rule: InputRule): (p: string, isFile: boolean) => boolean {
  const reached = new Map<string, boolean>([[project, true]]);
  const folderReached = (dir: string): boolean => {
    const known = reached.get(dir);
    if (known !== undefined) return known;
    const name = path.basename(dir);
    const yes =
      !ALWAYS_SKIPPED.has(name) &&
      !rule.skip.has(name) &&
      !fs.existsSync(path.join(dir, "pyvenv.cfg")) &&
      folderReached(path.dirname(dir));
    reached.set(dir, yes);
    return yes;
  };
  return (p, isFile) =>
    isWithin(project, p) &&
    (!isFile || rule.files.test(path.basename(p))) &&
    folderReached(isFile ? path.dirname(p) : p);
}

/**
 * What a closure adds to the project's inputs: its files and folders less those the project's walk keys
 * already. Every whole-program closure goes through here (whole-program.ts), so a file a tool reads under
 * a folder the walk skips (`build/gen.d.ts` in a tsconfig's `include`, a mypy_path of `build/stubs`) is
 * keyed like one outside the project.
 */
export function beyondWalk(closure: Closure, project: string, rule: InputRule): Closure {
  const covers = walkCoverage(project, rule);
  return {
    ...closure,
    files: closure.files.filter((f) => !covers(f, true)),
    dirs: outermost((closure.dirs ?? []).filter((d) => !covers(d.dir, false))),
  };
}

/** Runs a short, read-only query of the toolchain; its stdout, or an Error with its stderr. */
async function query(
  ctx: ToolContext,
  program: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  searchDirs: string[] = [],
): Promise<string> {
  const run = await ctx.run({ program, args, cwd, env, searchDirs });
  if (run.returncode !== 0)
    throw new Error(`${program} ${args.join(" ")} failed: ${run.stderr.trim().split("\n")[0] ?? ""}`);
  return run.stdout;
}

interface GoModEdit {
  Replace?: { New?: { Path?: string; Version?: string } }[] | null;
  Use?: { DiskPath?: string }[] | null;
}

/** The local targets of a go.mod's or go.work's replace directives (paths, not module versions). */
function localReplaces(json: GoModEdit, dir: string): string[] {
  return (json.Replace ?? [])
    .map((r) => r.New)
    .filter((n) => n?.Path && !n.Version && /^(?:\.{1,2}(?:\/|$)|\/)/.test(n.Path))
    .map((n) => path.resolve(dir, n?.Path as string));
}

/**
 * Go: go.work (when `go env GOWORK` names one), its modules, and the local replace targets, as go resolves
 * them in `at` (the module the tool runs in, `project` or one nested in it); folders within `project` are
 * its inputs already. A failure of go itself leaves the closure empty beside the project (the tool run
 * reports the same failure).
 */
export function goClosure(
  ctx: ToolContext,
  at: string,
  project: string,
  rule: InputRule,
): ClosureSpec["resolve"] {
  return async () => {
    const env = GO_ENV;
    const bins = goBinDirs();
    const files: string[] = [];
    // A go.work put in the module later: go then works in workspace mode.
    const watch: string[] = [path.join(at, "go.work")];
    const dirs = new Set<string>();
    let modules = [at];
    try {
      const gowork = (await query(ctx, "go", ["env", "GOWORK"], at, env, bins)).trim();
      if (gowork && gowork !== "off") {
        files.push(gowork, `${gowork}.sum`);
        const work = JSON.parse(
          await query(ctx, "go", ["work", "edit", "-json", gowork], at, env, bins),
        ) as GoModEdit;
        const base = path.dirname(gowork);
        modules = (work.Use ?? []).map((u) => path.resolve(base, u.DiskPath ?? "."));
        for (const r of localReplaces(work, base)) dirs.add(r);
      }
      for (const mod of modules.slice(0, MAX_DIRS)) {
        dirs.add(mod);
        const gomod = path.join(mod, "go.mod");
        watch.push(gomod);
        if (!fs.existsSync(gomod)) continue;
        const json = JSON.parse(
          await query(ctx, "go", ["mod", "edit", "-json", gomod], mod, env, bins),
        ) as GoModEdit;
        for (const r of localReplaces(json, mod)) dirs.add(r);
      }
    } catch {
      return { files: [], watch };
    }
    return { files, dirs: closureDirs(dirs, rule), watch: [...watch, ...files] };
  };
}

interface CargoMetadata {
  packages?: { manifest_path?: string; dependencies?: { path?: string }[] }[];
}

/**
 * Rust: the path dependencies of the packages of the workspace cargo finds in `at` (where the tool runs:
 * `project` or a workspace nested in it), and of theirs, by `cargo metadata --no-deps`; folders within
 * `project` are its inputs already.
 */
export function cargoClosure(
  ctx: ToolContext,
  at: string,
  project: string,
  rule: InputRule,
): ClosureSpec["resolve"] {
  return async () => {
    const seen = new Set<string>([at]);
    const manifests: string[] = [];
    const queue = [at];
    try {
      while (queue.length && seen.size <= MAX_DIRS) {
        const dir = queue.shift() as string;
        const meta = JSON.parse(
          await query(ctx, "cargo", ["metadata", "--no-deps", "--format-version", "1", "--offline"], dir, {
            CARGO_TERM_COLOR: "never",
          }),
        ) as CargoMetadata;
        for (const pkg of meta.packages ?? []) {
          if (pkg.manifest_path) manifests.push(pkg.manifest_path);
          for (const dep of pkg.dependencies ?? [])
            if (dep.path && !seen.has(dep.path)) {
              seen.add(dep.path);
              queue.push(dep.path);
            }
        }
      }
    } catch {
      return { files: [] };
    }
    const watch = manifests.filter((m) => !isWithin(project, m));
    return { files: [], dirs: closureDirs(seen, rule), watch };
  };
}

/** A virtualenv's site-packages folder and the names in it. */
export interface SitePackages {
  site: string;
  names: readonly string[];
}

/**
 * Python: the import-path folders named by the configs in `at` (the innermost project holding the target,
 * every config file a marker of one) and its folders up to `project` (`inputs`, the project's files, hold
 * them), which a checker run at the target can read, and by the environment; the mypy plugins those
 * configs name; and what each virtualenv's
 * `.pth` and editable finder files put on the import path (an editable install's source folder). More
 * than MAX_DIRS such folders: not cached rather than half keyed.
 */
export function pythonClosure(
  at: string,
  inputs: readonly string[],
  sites: readonly SitePackages[],
  rule: InputRule,
): ClosureSpec["resolve"] {
  return () => {
    const configs = inputs.filter(
      (f) => IMPORT_PATH_CONFIGS.test(path.basename(f)) && isWithin(path.dirname(f), at),
    );
    const dirs = envImportPaths(at);
    const files: string[] = [];
    for (const file of configs) {
      try {
        const text = fs.readFileSync(file, "utf8");
        dirs.push(...configuredImportPaths(file, text));
        files.push(...configuredPluginFiles(file, text));
      } catch {
        // Gone since the walk: the next call's inputs say so.
      }
    }
    const watch = [...configs];
    for (const { site, names } of sites) {
      const found = sitePathsOf(site, names);
      watch.push(...found.read);
      // A finder maps a module to its file; the rest are folders (one not there yet: its walk is empty).
      for (const p of found.paths) (/\.pyi?$/.test(p) && isFile(p) ? files : dirs).push(p);
    }
    if (dirs.length > MAX_DIRS)
      return Promise.resolve({
        files: [],
        watch,
        uncached: `the import path names ${dirs.length} folders (more than ${MAX_DIRS}): not all of them are keyed`,
      });
    return Promise.resolve({ files, dirs: closureDirs(dirs, rule), watch: [...watch, ...files] });
  };
}

const isFile = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;

/**
 * TypeScript: nothing before a run (the worker reports what each run read; see tscReads), remembered with
 * the project's tsconfig files so that a new `extends` resolves again.
 */
export function nothingBeforeTheRun(watch: string[]): ClosureSpec["resolve"] {
  return () => Promise.resolve({ files: [], watch });
}

/**
 * What a TypeScript run read: its config chain wherever it leads (an `extends` into an installed package
 * included, by content where the server may read it: `readable`; else, like the installed packages, by
 * the project's node_modules state), and the program's sources and `include` folders outside any
 * node_modules and the compiler's own lib files. What the project's walk keys already is dropped by
 * beyondWalk, not here.
 */
export function tscReads(
  read: {
    configs?: readonly string[];
    sources?: readonly string[];
    dirs?: readonly string[];
    unknown?: string;
  },
  rule: InputRule,
  readable: (file: string) => boolean,
): Closure {
  if (read.unknown) return { files: [], uncached: read.unknown };
  const installed = (f: string) => f.split(path.sep).includes("node_modules");
  const configs = (read.configs ?? []).filter((f) => !installed(f) || readable(f));
  return {
    files: [...configs, ...(read.sources ?? []).filter((f) => !installed(f))],
    dirs: closureDirs(
      (read.dirs ?? []).filter((d) => !installed(d)),
      rule,
    ),
    watch: configs,
  };
}
