/**
 * What `check` runs on a path: its languages (from project-languages.ts, plus requirements*.txt and
 * Markdown files) and, per language, the format check, lint, type check and link check the server would
 * run there, each as the engine call that does it (and the transactional call that fixes it, for --fix).
 * Reads file names and small config files only.
 */
import fs from "node:fs";
import path from "node:path";
import { hasFilesMatching, projectLanguages } from "../adapters/project-languages.js";

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
  /** The path given on the command line, absolute. */
  target: string;
  call: EngineCall;
  /** The transactional calls --fix makes before the check (lint_fix, autoformat). */
  fix?: EngineCall[];
  /** How to install the tool when it is missing. */
  install: string;
  /** Findings of this language's files (for --changed). */
  files: RegExp;
}

export const MARKDOWN_FILES = /\.(?:md|markdown)$/i;

const LANGUAGE_FILES: Record<CheckLanguage, RegExp> = {
  python: /\.pyi?$/,
  js: /\.[cm]?[jt]sx?$/,
  go: /\.go$/,
  rust: /\.rs$/,
  ruby: /\.(?:rb|rake|gemspec)$|(?:^|\/)(?:Gemfile|Rakefile)$/,
  markdown: MARKDOWN_FILES,
};

const INSTALL: Record<string, string> = {
  black: "pip install black",
  flake8: "pip install flake8",
  mypy: "pip install mypy",
  ty: "pip install ty (or: uv tool install ty)",
  gofmt: "install Go: https://go.dev/doc/install",
  govet: "install Go: https://go.dev/doc/install",
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

function readText(file: string): string {
  try {
    // Config files are small; a huge one is not a config we need to read.
    const st = fs.statSync(file);
    return st.isFile() && st.size < 1024 * 1024 ? fs.readFileSync(file, "utf8") : "";
  } catch {
    return "";
  }
}

const exists = (dir: string, ...names: string[]) => names.some((n) => fs.existsSync(path.join(dir, n)));

/** Which Python tools a project is configured for (pyproject.toml, setup.cfg, tox.ini, own config files). */
export function pythonTools(dir: string): { formatter: string; linter: string; checker: string } {
  const pyproject = readText(path.join(dir, "pyproject.toml"));
  const setupCfg = readText(path.join(dir, "setup.cfg")) + readText(path.join(dir, "tox.ini"));
  const section = (text: string, name: string) =>
    new RegExp(`^\\[${name.replace(/\./g, "\\.")}\\]`, "m").test(text);
  const ruffConfigured = exists(dir, "ruff.toml", ".ruff.toml") || /^\[tool\.ruff/m.test(pyproject);
  const formatter = !ruffConfigured && section(pyproject, "tool.black") ? "black" : "ruff";
  const linter =
    !ruffConfigured && (exists(dir, ".flake8") || section(setupCfg, "flake8")) ? "flake8" : "ruff";
  let checker = "ty";
  if (exists(dir, "mypy.ini", ".mypy.ini") || section(pyproject, "tool.mypy") || section(setupCfg, "mypy"))
    checker = "mypy";
  else if (exists(dir, "pyrightconfig.json") || section(pyproject, "tool.pyright")) checker = "pyright";
  return { formatter, linter, checker };
}

/** A JavaScript/TypeScript project formatted with Prettier: a config, or Prettier in package.json. */
export function usesPrettier(dir: string): boolean {
  if (fs.readdirSync(dir).some((n) => /^\.?prettierrc(?:\.\w+)?$|^prettier\.config\.[cm]?[jt]s$/.test(n)))
    return true;
  const pkg = readText(path.join(dir, "package.json"));
  try {
    const json = JSON.parse(pkg) as Record<string, Record<string, unknown> | undefined>;
    return (
      json.prettier !== undefined ||
      json.dependencies?.prettier !== undefined ||
      json.devDependencies?.prettier !== undefined
    );
  } catch {
    return false;
  }
}

/** The languages of a path as check groups them (TypeScript and JavaScript are one group). */
export function checkLanguages(target: string): CheckLanguage[] {
  const found = new Set<CheckLanguage>();
  for (const l of projectLanguages(target)) found.add(l === "typescript" || l === "javascript" ? "js" : l);
  const dir = directoryOf(target);
  if (!found.has("python") && fs.statSync(target).isDirectory())
    if (fs.readdirSync(dir).some((n) => /^requirements.*\.txt$/.test(n)) && hasFilesMatching(target, /\.py$/))
      found.add("python");
  if (hasFilesMatching(target, MARKDOWN_FILES)) found.add("markdown");
  // clippy and cargo need a crate: .rs files without a Cargo.toml are not a Rust project check can run.
  if (found.has("rust") && !findUp(dir, "Cargo.toml")) found.delete("rust");
  return [...found];
}

function directoryOf(target: string): string {
  return fs.statSync(target).isDirectory() ? target : path.dirname(target);
}

function findUp(dir: string, name: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, name))) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

/** The checks of one path, in report order: per language format, lint, types; links last. */
export function planChecks(target: string, options: { externalLinks: boolean }): PlannedCheck[] {
  const dir = directoryOf(target);
  const out: PlannedCheck[] = [];
  const add = (c: Omit<PlannedCheck, "target" | "install" | "files">) =>
    out.push({ ...c, target, install: installAdvice(c.id), files: LANGUAGE_FILES[c.language] });
  for (const language of checkLanguages(target)) {
    switch (language) {
      case "python": {
        const t = pythonTools(dir);
        add({
          id: `${t.formatter}-format`,
          kind: "format",
          language,
          call: { tool: "format_check", args: { language: "python", formatter: t.formatter } },
          fix: [{ tool: "autoformat", args: { language: "python", formatter: t.formatter } }],
        });
        add({
          id: t.linter,
          kind: "lint",
          language,
          call: { tool: "lint", args: { linter: t.linter } },
          fix: t.linter === "ruff" ? [{ tool: "lint_fix", args: { linter: "ruff" } }] : undefined,
        });
        add({
          id: t.checker,
          kind: "types",
          language,
          call: { tool: "type_check", args: { checker: t.checker } },
        });
        break;
      }
      case "js": {
        const languages = projectLanguages(target).filter((l) => l === "typescript" || l === "javascript");
        if (usesPrettier(dir))
          add({
            id: "prettier",
            kind: "format",
            language,
            call: { tool: "format_check", args: { formatter: "prettier" } },
            fix: languages.map((l) => ({ tool: "autoformat", args: { language: l, formatter: "prettier" } })),
          });
        add({
          id: "eslint",
          kind: "lint",
          language,
          call: { tool: "lint", args: { linter: "eslint" } },
          fix: [{ tool: "lint_fix", args: { linter: "eslint" } }],
        });
        if (exists(dir, "tsconfig.json"))
          add({ id: "tsc", kind: "types", language, call: { tool: "type_check", args: { checker: "tsc" } } });
        break;
      }
      case "go":
        add({
          id: "gofmt",
          kind: "format",
          language,
          call: { tool: "format_check", args: { language: "go" } },
          fix: [{ tool: "autoformat", args: { language: "go" } }],
        });
        add({ id: "govet", kind: "lint", language, call: { tool: "lint", args: { linter: "govet" } } });
        add({ id: "go", kind: "types", language, call: { tool: "type_check", args: { checker: "go" } } });
        break;
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
  }
  return out;
}
