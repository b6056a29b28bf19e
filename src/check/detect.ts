/**
 * What `check` runs on a path: its languages (from project-languages.ts, plus requirements*.txt and
 * Markdown files) and, per language, the format check, lint, type check and link check the server would
 * run there, each as the engine call that does it (and the transactional call that fixes it, for --fix).
 * Reads file names and small config files only.
 */
import fs from "node:fs";
import path from "node:path";
import { hasFilesMatching, projectLanguages } from "../adapters/project-languages.js";
import { formatterFor, linterFor, typeCheckersFor } from "../adapters/tool-choice.js";

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
        // The same tools a call without a tool name uses (tool-choice.ts), and each configured type checker.
        const formatter = formatterFor("python", dir).name ?? "ruff";
        const linter = linterFor("python", dir);
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
        for (const checker of typeCheckersFor("python", dir))
          add({ id: checker, kind: "types", language, call: { tool: "type_check", args: { checker } } });
        break;
      }
      case "js": {
        const languages = projectLanguages(target).filter((l) => l === "typescript" || l === "javascript");
        if (languages.some((l) => formatterFor(l, dir).name === "prettier"))
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
        if (typeCheckersFor("typescript", dir).length && fs.existsSync(path.join(dir, "tsconfig.json")))
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
