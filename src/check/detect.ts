/**
 * What `check` runs on a path: its languages (from project-languages.ts, plus requirements*.txt and
 * Markdown files) and, per language, the format check, lint, type check and link check the server would
 * run there, each as the engine call that does it (and the transactional call that fixes it, for --fix).
 * Reads file names and small config files only.
 */
import fs from "node:fs";
import path from "node:path";
import { hasFilesMatching, type ProjectLanguage } from "../adapters/project-languages.js";
import { projectLayout, type Ecosystem, type ProjectUnit } from "../adapters/projects.js";
import { unreachedTsconfigDirs } from "../adapters/js/tsconfig-references.js";
import { ownTypeCheckRoots } from "../adapters/type-check-units.js";
import { mayBeScript, scriptLanguage } from "../adapters/script-files.js";
import {
  formatterFor,
  GOLANGCI_INSTALL,
  goFormatter,
  goLinter,
  linterFor,
  typeCheckersFor,
} from "../adapters/tool-choice.js";

export type CheckKind = "format" | "lint" | "types" | "links";
export type CheckLanguage = "python" | "js" | "go" | "rust" | "ruby" | "markdown";

/** An engine call: a core tool and its arguments (paths are added by the runner). */
export interface EngineCall {
  tool: string;
  args: Record<string, unknown>;
}

export interface PlannedCheck {
  /** The name --only / --skip use, unique per path: ruff, ruff-format, ty, eslint, clippy... */
  id: string;
  kind: CheckKind;
  language: CheckLanguage;
  /** Where the check runs: a project below the path given (or that path itself, or loose files in it). */
  target: string;
  /** The path given on the command line, absolute. */
  path: string;
  call: EngineCall;
  /** The transactional calls --fix makes before the check (lint_fix, autoformat). */
  fix?: EngineCall[];
  /** How to install the tool when it is missing. */
  install: string;
  /**
   * The project's own configuration asks for this tool (a `.golangci.yml`): when it does not run, the
   * project is not checked as it means, whatever else ran (exit-code.ts's uncheckedProjects).
   */
  required?: boolean;
  /** Findings of this language's files (for --changed). */
  files: RegExp;
  /**
   * The languages of the scripts (files with no dot in their name known by their `#!` line, script-files.ts)
   * whose findings the check's run has, beside `files`: those its tool's own walk takes (Prettier, ESLint by
   * its config, RuboCop; not ruff's, mypy's...), or, when the check's target is one script, that script's
   * (each tool that takes a named script by hand: every Python one, Prettier, ESLint, RuboCop; not tsc).
   */
  scripts?: readonly ProjectLanguage[];
  /**
   * The build cache the check compiles into (a Go module's packages in go's): checks of one such cache run
   * one after another (run.ts), the later finding what the earlier compiled.
   */
  buildCache?: string;
  /**
   * Its tool reports on a whole program around the target (tsc's project above a file or folder): only the
   * findings under the target are kept, as --changed keeps those in the changed files.
   */
  keepUnderTarget?: true;
}

export const MARKDOWN_FILES = /\.(?:md|markdown)$/i;

/** Whether a check's run reports on `file` (for --changed, --files): by its name, or as a script (`scripts`). */
export function checksFile(check: PlannedCheck, file: string): boolean {
  if (check.files.test(file)) return true;
  if (!check.scripts?.length || !mayBeScript(file)) return false;
  const language = scriptLanguage(file);
  return language !== undefined && check.scripts.includes(language);
}

const LANGUAGE_FILES: Record<CheckLanguage, RegExp> = {
  python: /\.pyi?$/,
  js: /\.[cm]?[jt]sx?$/,
  go: /\.go$/,
  rust: /\.rs$/,
  ruby: /\.(?:rb|rake|gemspec)$|(?:^|\/)(?:Gemfile|Rakefile)$/,
  markdown: MARKDOWN_FILES,
};

const JS_SCRIPTS: readonly ProjectLanguage[] = ["javascript", "typescript"];

const INSTALL: Record<string, string> = {
  black: "pip install black",
  flake8: "pip install flake8",
  mypy: "pip install mypy",
  ty: "pip install ty (or: uv tool install ty)",
  gofmt: "install Go: https://go.dev/doc/install",
  govet: "install Go: https://go.dev/doc/install",
  "golangci-lint": GOLANGCI_INSTALL,
  "golangci-lint-format": GOLANGCI_INSTALL,
  go: "install Go: https://go.dev/doc/install",
  rustfmt: "rustup component add rustfmt",
  clippy: "rustup component add clippy",
  cargo: "install Rust: https://rustup.rs",
  rubocop: "gem install rubocop (or add it to the Gemfile and run bundle install)",
};

/** How to install a check's tool (bundled ones are never missing). */
export function installAdvice(id: string): string {
  return INSTALL[id] ?? "see the tool's documentation";
}

/** check's language of a project unit (TypeScript and JavaScript are one group, as in projects.ts). */
const CHECK_LANGUAGE: Record<Ecosystem, CheckLanguage> = {
  python: "python",
  js: "js",
  go: "go",
  rust: "rust",
  ruby: "ruby",
};

/** Whether a unit is a Python one only by `requirements*.txt` beside its `.py` files (no other manifest). */
function hasPythonFiles(target: string): boolean {
  return fs.statSync(target).isDirectory()
    ? fs.readdirSync(target).some((n) => /^requirements.*\.txt$/.test(n)) && hasFilesMatching(target, /\.py$/)
    : false;
}

export interface CheckPlan {
  checks: PlannedCheck[];
  /** What the path holds that no check covers, and why (Go or Rust files outside any module or crate). */
  notes: string[];
}

/**
 * The checks of one path, in report order: per project unit below it (projects.ts: each language's tools
 * at each of its project roots, with the project's own configuration) its format check, lint and type
 * check; the Markdown link check of the whole path last. `root` is the allowed root the path is in.
 */
export function planPath(
  target: string,
  options: { externalLinks: boolean; linksOnly?: boolean },
  root = target,
): CheckPlan {
  // Only the link check asked for (--only links): no project search, whose notes would not apply either.
  const layout = options.linksOnly ? { units: [], notes: [] } : projectLayout(target, root);
  const checks: PlannedCheck[] = [];
  const units = [...layout.units];
  // A folder with requirements*.txt and .py files only under vendored-looking names is still Python.
  if (!units.some((u) => u.ecosystem === "python") && hasPythonFiles(target))
    units.push({ dir: target, ecosystem: "python", languages: ["python"], kind: "target" });
  for (const unit of units) {
    const own = planUnit(unit.dir, CHECK_LANGUAGE[unit.ecosystem], unit.languages, root, options);
    checks.push(...own);
    if (unit.ecosystem === "js") checks.push(...nestedTscChecks(unit, own, root));
    if (unit.ecosystem === "python") checks.push(...nestedPythonTypeChecks(unit, root));
  }
  if (hasFilesMatching(target, MARKDOWN_FILES))
    checks.push(...planUnit(target, "markdown", [], root, options));
  for (const c of checks) c.path = target;
  return { checks, notes: layout.notes };
}

/**
 * A tsc check at each project `unit` covers whose tsconfig.json no tsc run of the unit reaches through its
 * references (tsconfig-references.ts): ESLint's and Prettier's walks take a workspace's packages, tsc -p
 * does not (a turborepo root with no tsconfig, or one whose tsconfig leaves a package out, had apps/web
 * never type-checked). A package another package's run references is checked by that run.
 */
function nestedTscChecks(unit: ProjectUnit, own: readonly PlannedCheck[], root: string): PlannedCheck[] {
  const run = own.filter((c) => c.id === "tsc").map((c) => path.join(directoryOf(c.target), "tsconfig.json"));
  const candidates = (unit.covered ?? []).filter((d) => fs.existsSync(path.join(d, "tsconfig.json")));
  return unreachedTsconfigDirs(run, candidates).flatMap((dir) =>
    planUnit(dir, "js", ["typescript"], root, { externalLinks: false }).filter((c) => c.id === "tsc"),
  );
}

/**
 * The type checks of each nested Python project `unit` covers that configures a type checker itself
 * (type-check-units.ts), at its own root with its own checkers: the unit's run leaves them out.
 */
function nestedPythonTypeChecks(unit: ProjectUnit, root: string): PlannedCheck[] {
  return ownTypeCheckRoots(unit.dir, root).flatMap((dir) =>
    planUnit(dir, "python", ["python"], root, { externalLinks: false }).filter((c) => c.kind === "types"),
  );
}

/**
 * --files: the checks of each named script (script-files.ts) that no planned check reports on, run at the
 * script itself, where the tool takes it as run by hand: ruff's walk skips `bin/tool` (`#!/usr/bin/env
 * python3`) and `ruff check bin/tool` lints it (as pre-commit's hooks, which pick files by their `#!` line,
 * give it to ruff). A script a planned check's run covers (Prettier's, ESLint's, RuboCop's walks) is left to it.
 */
export function namedScriptChecks(
  files: readonly string[],
  planned: readonly PlannedCheck[],
  plan: (file: string) => PlannedCheck[],
): PlannedCheck[] {
  const out: PlannedCheck[] = [];
  for (const file of files) {
    if (!mayBeScript(file) || scriptLanguage(file) === undefined) continue;
    const covered = (id: string) =>
      planned.some((p) => p.id === id && isWithinOrSame(p.target, file) && checksFile(p, file));
    out.push(...plan(file).filter((c) => !covered(c.id)));
  }
  return out;
}

const isWithinOrSame = (dir: string, file: string) => file === dir || file.startsWith(dir + path.sep);

function directoryOf(target: string): string {
  return fs.statSync(target).isDirectory() ? target : path.dirname(target);
}

/** The checks of one path (planPath's). */
export function planChecks(
  target: string,
  options: { externalLinks: boolean },
  root = target,
): PlannedCheck[] {
  return planPath(target, options, root).checks;
}

/**
 * Whether a tsconfig.json is at `dir` or above it, up to `root`: a folder or file inside a TypeScript
 * project is type-checked by its project's tsc run (`check src/index.ts` ran ESLint only, where `tsc -p ..`
 * fails), which keeps the findings under the path.
 */
function tsconfigAbove(dir: string, root: string): boolean {
  for (let d = dir; d === root || d.startsWith(root + path.sep); d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, "tsconfig.json"))) return true;
    if (d === path.dirname(d)) break;
  }
  return false;
}

/** One unit's checks: the format check, lint and type check of its language, run at `target`. */
function planUnit(
  target: string,
  language: CheckLanguage,
  languages: readonly ProjectLanguage[],
  root: string,
  options: { externalLinks: boolean },
): PlannedCheck[] {
  const dir = directoryOf(target);
  // One script named (its language by its #! line): every tool of it that takes a named script is given it.
  const script = dir !== target && !LANGUAGE_FILES[language].test(target) ? languages : undefined;
  const out: PlannedCheck[] = [];
  const add = (c: Omit<PlannedCheck, "target" | "path" | "install" | "files">) =>
    out.push({
      ...c,
      target,
      path: target,
      install: installAdvice(c.id),
      files: LANGUAGE_FILES[c.language],
      ...(script || c.scripts ? { scripts: script ?? c.scripts } : {}),
    });
  switch (language) {
    case "python": {
      // The same tools a call without a tool name uses (tool-choice.ts), and each configured type checker.
      const formatter = formatterFor("python", dir, root).name ?? "ruff";
      const linter = linterFor("python", dir, root);
      add({
        id: `${formatter}-format`,
        kind: "format",
        language,
        call: { tool: "format_check", args: { language: "python", formatter } },
        fix: [{ tool: "autoformat", args: { language: "python", formatter } }],
      });
      add({
        id: linter,
        kind: "lint",
        language,
        call: { tool: "lint", args: { linter } },
        fix: linter === "ruff" ? [{ tool: "lint_fix", args: { linter: "ruff" } }] : undefined,
      });
      for (const checker of typeCheckersFor("python", dir, root))
        add({ id: checker, kind: "types", language, call: { tool: "type_check", args: { checker } } });
      break;
    }
    case "js": {
      if (languages.some((l) => formatterFor(l, dir, root).name === "prettier"))
        add({
          id: "prettier",
          kind: "format",
          language,
          call: { tool: "format_check", args: { formatter: "prettier" } },
          // One call over the project's scope: every file Prettier formats there (JSON, CSS too).
          fix: [{ tool: "autoformat", args: { formatter: "prettier" } }],
          // Its walk takes a script by its interpreter (prettier-files.ts).
          scripts: JS_SCRIPTS,
        });
      add({
        id: "eslint",
        kind: "lint",
        language,
        call: { tool: "lint", args: { linter: "eslint" } },
        fix: [{ tool: "lint_fix", args: { linter: "eslint" } }],
        // Its walk lints a script a `files` pattern of its config matches (`bin/tool`); the others it skips.
        scripts: JS_SCRIPTS,
      });
      // tsc takes no file without an extension of its own (TS6054), named or not.
      if (!script && typeCheckersFor("typescript", dir, root).length && tsconfigAbove(dir, root))
        add({
          id: "tsc",
          kind: "types",
          language,
          call: { tool: "type_check", args: { checker: "tsc" } },
          ...(!fs.existsSync(path.join(target, "tsconfig.json")) && { keepUnderTarget: true as const }),
        });
      break;
    }
    case "go": {
      // The project's formatter (golangci-lint fmt where its golangci-lint config enables formatters, else
      // gofmt); enabled but not installed, a check of its own is skipped with that reason beside gofmt's.
      const formatter = goFormatter(dir, root);
      const formatArgs = { language: "go", formatter: formatter.name };
      add({
        id: formatter.name === "golangci-lint" ? "golangci-lint-format" : "gofmt",
        kind: "format",
        language,
        call: { tool: "format_check", args: formatArgs },
        fix: [{ tool: "autoformat", args: formatArgs }],
      });
      if (formatter.note)
        out.push({
          id: "golangci-lint-format",
          kind: "format",
          language,
          target,
          path: target,
          call: { tool: "format_check", args: { language: "go", formatter: "golangci-lint" } },
          install: `${GOLANGCI_INSTALL} (the project's golangci-lint config enables formatters; gofmt ran instead, whose verdict is not the project's own)`,
          files: LANGUAGE_FILES.go,
          required: true,
        });
      // The project's linter (golangci-lint where it has a config); a configured golangci-lint that is not
      // installed is a check of its own, skipped with that reason, beside the govet that runs instead.
      const linter = goLinter(dir, root);
      if (linter.note)
        out.push({
          id: "golangci-lint",
          kind: "lint",
          language,
          target,
          path: target,
          call: { tool: "lint", args: { linter: "golangci-lint" } },
          install: `${GOLANGCI_INSTALL} (the project configures it; govet ran instead, whose verdict is not the project's own)`,
          files: LANGUAGE_FILES.go,
          required: true,
        });
      // go vet and golangci-lint compile the module's packages as go build does, into go's build cache.
      const buildCache = `go:${dir}`;
      add({
        id: linter.name,
        kind: "lint",
        language,
        buildCache,
        call: { tool: "lint", args: { linter: linter.name } },
        // golangci-lint fixes with the project's config (run --fix); go vet fixes nothing.
        fix:
          linter.name === "golangci-lint"
            ? [{ tool: "lint_fix", args: { linter: "golangci-lint" } }]
            : undefined,
      });
      add({
        id: "go",
        kind: "types",
        language,
        buildCache,
        call: { tool: "type_check", args: { checker: "go" } },
      });
      break;
    }
    case "rust":
      add({
        id: "rustfmt",
        kind: "format",
        language,
        call: { tool: "format_check", args: { language: "rust" } },
        fix: [{ tool: "autoformat", args: { language: "rust" } }],
      });
      add({
        id: "clippy",
        kind: "lint",
        language,
        call: { tool: "lint", args: { linter: "clippy" } },
        fix: [{ tool: "lint_fix", args: { linter: "clippy" } }],
      });
      add({
        id: "cargo",
        kind: "types",
        language,
        call: { tool: "type_check", args: { checker: "cargo" } },
      });
      break;
    case "ruby":
      // RuboCop's lint covers its Layout cops, which are all its format check would run.
      add({
        id: "rubocop",
        kind: "lint",
        language,
        call: { tool: "lint", args: { linter: "rubocop" } },
        fix: [{ tool: "lint_fix", args: { linter: "rubocop" } }],
        // Its walk takes a script its RubyInterpreters run (`#!/usr/bin/env ruby`).
        scripts: ["ruby"],
      });
      break;
    case "markdown":
      add({
        id: "markdown-links",
        kind: "links",
        language,
        call: { tool: "check_markdown_links", args: { check_external: options.externalLinks } },
      });
      break;
  }
  return out;
}
