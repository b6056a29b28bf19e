/**
 * What an ESLint call runs on: the project root (ESLint's cwd and the worker's identity), the config
 * file, the files or globs (checked to stay inside the allowed paths) and the module to load.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import type { ToolContext } from "../../engine/tool.js";
import { isWithin } from "../../paths/allowlist.js";
import { refuseLinksLeaving } from "../../paths/outside-links.js";
import {
  ESLINT_CONFIG_NAMES,
  bundledPackage,
  directoryOf,
  findUp,
  majorVersion,
  packageRoot,
  projectPackage,
  type ToolModule,
} from "./project.js";
import { lintScriptTargets } from "./lint-script.js";
import { eslintWrapperOf } from "./eslint-wrappers.js";
import { readPackageJson } from "../project-configs.js";
import { xoProjectOf } from "./xo.js";

export interface EslintScope {
  /** ESLint's cwd and the worker's project root. */
  root: string;
  /** The directory `files` are relative to (the `path` argument, or its directory for a file). */
  base: string;
  configFile: string | null;
  /** Patterns relative to root, as ESLint gets them. */
  patterns: string[];
  /** Patterns as the caller gave them (or the default), for `command`. */
  shown: string[];
  eslint: ToolModule;
  notes: string[];
  /** Files whose change restarts the worker. */
  watch: string[];
  /** `full` when the whole project (or seed 001's default) is linted, `filtered` for a subset. */
  scope: "full" | "filtered";
  /** Folders left out, relative to root (a workspace root's packages with configs of their own). */
  ignore?: string[];
  /** The project's installed xo, which lints and fixes instead of ESLint (an xo project without an eslint.config.*). */
  xo?: ToolModule;
}

/**
 * The scope when no `files` are given: `project` lints what the project lints itself (its `lint` script's
 * targets, else the whole directory, as `eslint` does with a flat config); `seed` is seed 001's `src/`.
 */
export type DefaultScope = "project" | "seed";

const GLOB_CHARS = /[*?[\]{}!]/;

/** Splits off the literal leading directories of a glob (what can be checked as a path). */
export function staticPrefix(pattern: string): string {
  const parts = pattern.split("/");
  const fixed: string[] = [];
  for (const p of parts) {
    if (GLOB_CHARS.test(p)) break;
    fixed.push(p);
  }
  return fixed.join("/");
}

/** The real location of the deepest existing directory of `dir` (ESLint walks from there, following links). */
function realExistingAncestor(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      return fs.realpathSync.native(d);
    } catch {
      if (d === path.dirname(d)) return d;
    }
  }
}

/**
 * Each pattern resolved against `base` and checked: a plain path must exist inside the allowed
 * paths; a glob's literal prefix must stay inside `base`, symlinks resolved. Returns absolute patterns.
 */
export function checkPatterns(ctx: ToolContext, patterns: readonly string[], base: string): string[] {
  return patterns.map((p) => {
    if (p.trim() === "" || p.startsWith("-"))
      throw new ToolError("invalid_input", `files: "${p}" is not a file or glob`);
    if (!GLOB_CHARS.test(p)) return ctx.allowlist.resolve(p, { base, label: "files" });
    const prefix = path.resolve(base, staticPrefix(p) || ".");
    if (
      !isWithin(base, prefix) ||
      !isWithin(base, realExistingAncestor(prefix)) ||
      p.split(/[\\/]/).includes("..")
    )
      throw new ToolError("path_validation", `files: the glob "${p}" reaches outside ${base}`, {
        allowed_paths: ctx.allowlist.roots.effective,
      });
    return path.resolve(base, p);
  });
}

/** The folder ESLint walks for an absolute pattern: a glob's literal prefix, or a directory; none for a file. */
function searchedDirectory(absolute: string): string | undefined {
  if (GLOB_CHARS.test(absolute)) return realExistingAncestor(staticPrefix(absolute) || path.sep);
  return fs.statSync(absolute, { throwIfNoEntry: false })?.isDirectory() ? absolute : undefined;
}

/** ESLint only understands forward slashes in globs, relative to its cwd. */
function relativePattern(root: string, absolute: string): string {
  const rel = path.relative(root, absolute).split(path.sep).join("/");
  return rel === "" ? "." : rel;
}

/** seed 001's default scope: `src/` when there is one, else the whole directory. */
function defaultFiles(base: string): string[] {
  return fs.existsSync(path.join(base, "src")) ? ["src/"] : ["."];
}

/** The project's own scope: its lint script's targets (those that exist), else `.`; with a note saying which. */
function projectFiles(base: string, root: string): { files: string[]; note: string } {
  for (const dir of [...new Set([base, root])]) {
    let script: unknown;
    try {
      script = (
        JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
          scripts?: Record<string, unknown>;
        }
      ).scripts?.lint;
    } catch {
      continue;
    }
    if (typeof script !== "string") break;
    const targets = lintScriptTargets(script)?.filter((t) => fs.existsSync(path.resolve(base, t)));
    if (targets?.length)
      return {
        files: targets,
        note: `no files given: linted ${targets.join(" ")}, what the project's lint script lints (${script})`,
      };
    break;
  }
  return {
    files: ["."],
    note: `no files given: linted the whole of ${base}, as \`eslint\` does with a flat config`,
  };
}

export function eslintScope(
  ctx: ToolContext,
  target: string,
  files: readonly string[] | undefined,
  config: string | undefined,
  defaultScope: DefaultScope = "project",
): EslintScope {
  const allowedRoot = ctx.allowlist.rootOf(target) ?? target;
  const base = directoryOf(target);
  const notes: string[] = [];
  const configFile = config ?? findUp(ESLINT_CONFIG_NAMES, base, allowedRoot) ?? null;
  const root = configFile ? path.dirname(configFile) : packageRoot(base, allowedRoot);
  if (!isWithin(root, base) && !config)
    throw new ToolError("invalid_input", `${target} is not inside the ESLint project at ${root}`);

  let shown: string[];
  let absolute: string[];
  let scope: EslintScope["scope"] = "full";
  if (files && files.length > 0) {
    shown = [...files];
    absolute = checkPatterns(ctx, files, base);
    scope = "filtered";
  } else if (base !== target) {
    shown = [path.basename(target)];
    absolute = [target];
  } else if (defaultScope === "seed") {
    shown = defaultFiles(base);
    absolute = shown.map((f) => path.resolve(base, f));
  } else {
    const own = projectFiles(base, root);
    shown = own.files;
    absolute = checkPatterns(ctx, own.files, base);
    if (!own.files.includes(".")) scope = "filtered";
    notes.push(own.note);
  }
  for (const a of absolute)
    if (!isWithin(root, a))
      throw new ToolError("invalid_input", `files must lie inside the ESLint project root ${root}`);
  // ESLint lints symlinked files it finds in these folders, wherever they lead.
  for (const a of absolute) {
    const dir = searchedDirectory(a);
    if (dir) refuseLinksLeaving(dir, ctx.allowlist);
  }

  let eslint = projectPackage("eslint", root, allowedRoot);
  if (eslint && !eslint.entry) {
    notes.push(`the project's eslint ${eslint.version} has no loadable entry; used the bundled one`);
    eslint = undefined;
  }
  if (eslint && majorVersion(eslint.version) < 9) {
    notes.push(
      `the project's eslint ${eslint.version} predates flat config as the default; used the bundled one`,
    );
    eslint = undefined;
  }
  eslint ??= bundledPackage("eslint");
  const xoProject = configFile ? undefined : xoProjectOf(root, allowedRoot);
  if (xoProject?.xo)
    notes.push(`the project lints with xo (${xoProject.why}): ran its xo, with xo's own config`);
  else if (!configFile)
    notes.push(
      `no eslint.config.* ${base === allowedRoot ? `in ${base}` : `between ${base} and ${allowedRoot}`}: ` +
        "used the bundled default config (@eslint/js recommended + typescript-eslint recommended)",
    );
  else notes.push(`config: ${configFile}`);
  if (xoProject && !xoProject.xo)
    notes.push(
      `warning: the project lints with xo (${xoProject.why}), but xo is not installed (no node_modules/xo from ` +
        `${root} up): these are the bundled default config's findings, not xo's; install the project's ` +
        "dependencies (npm install) to lint it with its xo",
    );
  const wrapper = configFile || xoProject ? undefined : eslintWrapperOf(readPackageJson(root));
  if (wrapper)
    notes.push(
      `warning: the project lints with ${wrapper.name} (package.json ${wrapper.why}), which this server does not run: ` +
        `these are the bundled default config's findings, not ${wrapper.name}'s (its rules, plugins and ignores differ)`,
    );

  const watch = [
    ...ESLINT_CONFIG_NAMES.map((n) => path.join(root, n)),
    ...(configFile ? [configFile] : []),
    path.join(root, "package.json"),
    path.join(root, "tsconfig.json"),
    path.join(eslint.dir, "package.json"),
  ];
  return {
    root,
    base,
    configFile,
    patterns: absolute.map((a) => relativePattern(root, a)),
    shown,
    eslint,
    notes,
    watch: [...new Set(watch)],
    scope,
    ...(xoProject?.xo && { xo: xoProject.xo }),
  };
}
