/**
 * What the embedded ruff cannot know of a file (its wasm `check` sees only the source, not where the file is)
 * and the ruff CLI does, applied to its findings: a file named `__init__.py` is a package's (D104, not D100;
 * no PLC0414 for its `x as x` re-exports, `__path__` defined), and a file in a folder without one is part of an implicit
 * namespace package (INP001), names in a package's `__all__` may be submodules (no F822 outside preview), and one of a private module (`_config.py`, `_internal/x.py`) has no public
 * definitions (no D100-D107, ANN202 for ANN201). Each only when the project's settings select the rule.
 */
import fs from "node:fs";
import path from "node:path";
import type { Finding } from "../../findings/model.js";
import { isWithin } from "../../paths/allowlist.js";
import { selectorCovers } from "./ruff-selectors.js";
import { packagePath } from "../../package-root.js";
import { globMatches } from "./ruff-globs.js";
import type { RuffSettings } from "./ruff-settings.js";

let defaultRules: string[] | undefined;
/**
 * The rules ruff checks when the settings select none: 0.17.4's own list (407 rules, not the older E4, E7,
 * E9, F), shipped as data/ruff/default-rules.json (scripts/generate-ruff-rules.mjs).
 */
function defaultSelect(): string[] {
  defaultRules ??= (
    JSON.parse(fs.readFileSync(packagePath("data", "ruff", "default-rules.json"), "utf8")) as {
      rules: string[];
    }
  ).rules;
  return defaultRules;
}

const list = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** Whether the settings select `code` for a file whose per-file ignores are `ignored`. */
export function ruleSelected(settings: RuffSettings, code: string, ignored: readonly string[] = []): boolean {
  const options = settings.workspaceOptions;
  const lint = (options.lint ?? {}) as Record<string, unknown>;
  const select = list(lint.select ?? options.select);
  const chosen = [
    ...(select.length || "select" in lint || "select" in options ? select : defaultSelect()),
    ...list(lint["extend-select"] ?? options["extend-select"]),
  ];
  const covers = (entry: string) => selectorCovers(entry, code);
  const ignore = [...list(lint.ignore ?? options.ignore), ...ignored];
  return chosen.some(covers) && !ignore.some(covers);
}

/** Whether the settings turn on preview for the linter (`lint.preview`, else `preview`). */
function lintPreview(settings: RuffSettings): boolean {
  const options = settings.workspaceOptions;
  const lint = (options.lint ?? {}) as Record<string, unknown>;
  return (lint.preview ?? options.preview) === true;
}

/** Whether `file` is in a package: its folder has an `__init__.py`, is a `src` root, or a namespace package. */
function inPackage(file: string, settings: RuffSettings): boolean {
  const dir = path.dirname(file);
  if (fs.existsSync(path.join(dir, "__init__.py")) || fs.existsSync(path.join(dir, "__init__.pyi")))
    return true;
  const roots = settings.srcDirs ?? [settings.baseDir, path.join(settings.baseDir, "src")];
  // A file beside the config (the project root) counts as in one, whatever `src` says (pip's noxfile.py).
  if (dir === settings.baseDir || roots.includes(dir) || !isWithin(settings.baseDir, dir)) return true;
  return (settings.namespacePackages ?? []).some((ns) => isWithin(ns, dir));
}

const isPackageDir = (dir: string, namespacePackages: readonly string[]) =>
  fs.existsSync(path.join(dir, "__init__.py")) ||
  fs.existsSync(path.join(dir, "__init__.pyi")) ||
  namespacePackages.includes(dir);

/**
 * The names of a file's module as the CLI derives them: its package folders from the top one down and its
 * own name, or its own name alone outside a package.
 */
export function moduleNames(file: string, namespacePackages: readonly string[]): string[] {
  const names = [path.basename(file).replace(/\.pyi?$/, "")];
  for (
    let d = path.dirname(file);
    d !== path.dirname(d) && isPackageDir(d, namespacePackages);
    d = path.dirname(d)
  )
    names.unshift(path.basename(d));
  return names;
}

/** A private module: one of its names starts with `_` and is no dunder (`_config`, not `__main__`). */
export function isPrivateModule(names: readonly string[]): boolean {
  return names.some((n) => n.startsWith("_") && !(n.startsWith("__") && n.endsWith("__")));
}

/** pydocstyle's missing-docstring rules, which concern public definitions only. */
const MISSING_DOCSTRING = /^D10[0-7]$/;

const PYTHON_KEYWORDS = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally for " +
    "from global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);

/**
 * N999's module name for a file in a package (its folder's for `__init__.py`), when it is invalid: not a
 * lowercase identifier, or a keyword. Undefined outside a package, for a Django migration
 * (`migrations/0001_initial.py`), or for a name the settings' `pep8-naming.ignore-names` matches.
 */
function invalidModuleName(file: string, settings: RuffSettings): string | undefined {
  const namespaces = settings.namespacePackages ?? [];
  if (!isPackageDir(path.dirname(file), namespaces)) return undefined;
  const stem = path.basename(file).replace(/\.pyi?$/, "");
  const name = stem === "__init__" ? path.basename(path.dirname(file)) : stem;
  const migration = path.basename(path.dirname(file)) === "migrations" && /^\d[\p{Ll}\d_]*$/u.test(name);
  const valid =
    /^[\p{L}_][\p{L}\p{N}_]*$/u.test(name) && name === name.toLowerCase() && !PYTHON_KEYWORDS.has(name);
  if (valid || migration) return undefined;
  const lint = (settings.workspaceOptions.lint ?? {}) as Record<string, unknown>;
  const naming = (lint["pep8-naming"] ?? settings.workspaceOptions["pep8-naming"] ?? {}) as Record<
    string,
    unknown
  >;
  return list(naming["ignore-names"]).some((g) => globMatches(g, name)) ? undefined : name;
}

/** Where a file's shebang starts (`#!` after leading whitespace only), as 1-based line and column. */
function shebangAt(source: string): { line: number; column: number; length: number } | undefined {
  const lead = /^[ \t\f\r\n]*/.exec(source)?.[0] ?? "";
  if (!source.startsWith("#!", lead.length)) return undefined;
  const lines = lead.split("\n");
  const column = (lines[lines.length - 1] as string).length + 1;
  const rest = source.slice(lead.length);
  const length = (/^[^\r\n]*/.exec(rest)?.[0] ?? "").length;
  return { line: lines.length, column, length };
}

/** A finding the CLI makes from the file's path or mode, which the wasm never sees. */
function contextFinding(
  file: string,
  rule_id: string,
  message: string,
  at = { line: 1, column: 1, length: 0 },
): Finding {
  return {
    tool: "ruff",
    file,
    line: at.line,
    column: at.column,
    end_line: at.line,
    end_column: at.column + at.length,
    rule_id,
    severity: "error",
    message,
    correctable: false,
  };
}

/**
 * EXE001 and EXE002, which compare the file's shebang with its executable bits (the wasm never stats the
 * file). Only a shebang at the top (after whitespace) is seen here.
 */
function executableFindings(
  file: string,
  source: string,
  settings: RuffSettings,
  ignored: readonly string[],
): Finding[] {
  if (process.platform === "win32") return [];
  const executable = (fs.statSync(file).mode & 0o111) !== 0;
  const shebang = shebangAt(source);
  if (shebang && !executable && ruleSelected(settings, "EXE001", ignored))
    return [contextFinding(file, "EXE001", "Shebang is present but file is not executable", shebang)];
  if (!shebang && executable && ruleSelected(settings, "EXE002", ignored))
    return [contextFinding(file, "EXE002", "The file is executable but no shebang is present")];
  return [];
}

/** The findings of one file with the CLI's per-file context applied (see the module comment). */
export function withFileContext(
  file: string,
  findings: Finding[],
  settings: RuffSettings,
  ignored: readonly string[],
  /** Where the CLI would run (its messages name files from there): the project root, not a nested config's folder. */
  root: string,
  /** The file's text as checked (its shebang). */
  source: string,
): Finding[] {
  const init = path.basename(file) === "__init__.py";
  // Everything in a private module is private: no missing docstring, a private function's annotations.
  const privateModule = isPrivateModule(moduleNames(file, settings.namespacePackages ?? []));
  const out: Finding[] = [];
  for (const f of findings) {
    if (privateModule && MISSING_DOCSTRING.test(f.rule_id)) continue;
    if (privateModule && f.rule_id === "ANN201") {
      if (ruleSelected(settings, "ANN202", ignored))
        out.push({
          ...f,
          rule_id: "ANN202",
          message: f.message.replace("public function", "private function"),
        });
      continue;
    }
    if (init && f.rule_id === "PLC0414") continue;
    // A package's `__init__.py` has `__path__` bound, as the CLI knows from the file's name.
    if (init && f.rule_id === "F821" && f.message === "Undefined name `__path__`") continue;
    // Outside preview, a name in a package's `__all__` may be a submodule: the CLI reports no F822 there.
    if (init && f.rule_id === "F822" && !lintPreview(settings)) continue;
    if (init && f.rule_id === "D100") {
      if (ruleSelected(settings, "D104", ignored))
        out.push({ ...f, rule_id: "D104", message: "Missing docstring in public package" });
      continue;
    }
    out.push(f);
  }
  if (
    !init &&
    file.endsWith(".py") &&
    // A script (a shebang first thing in the file) is no module of a package.
    !source.startsWith("#!") &&
    !inPackage(file, settings) &&
    ruleSelected(settings, "INP001", ignored)
  )
    out.push(
      contextFinding(
        file,
        "INP001",
        `File \`${path.relative(root, file)}\` is part of an implicit namespace package. Add an \`__init__.py\`.`,
      ),
    );
  const badName = ruleSelected(settings, "N999", ignored) ? invalidModuleName(file, settings) : undefined;
  if (badName !== undefined) out.push(contextFinding(file, "N999", `Invalid module name: '${badName}'`));
  out.push(...executableFindings(file, source, settings, ignored));
  return out;
}
