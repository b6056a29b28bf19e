/**
 * Which tool(s) a call uses when it names none: decided here, once, for every tool (DESIGN.md principle 8),
 * from what the project is (project-languages.ts: its languages, weightiest first) and how it is configured
 * (project-configs.ts). Tools that take several (lint, format_check, check, security_scan) get one per
 * language; the others (lint_fix, autoformat, fix_all, type_check) get the weightiest language's. Where
 * nothing fits, the choice is empty and `nothing` says why: the tool answers `nothing_checked`, never a pass.
 */
import fs from "node:fs";
import path from "node:path";
import { findFixer } from "./fixers.js";
import { findFormatter } from "./formatters.js";
import { findLinter } from "./linters.js";
import { findExecutable } from "../exec/which.js";
import { findGoModule, goBinDirs } from "./go/go-env.js";
import { golangciFormatters } from "./go/golangci-config.js";
import { dirOf, golangciConfig, pythonTools, usesPrettier } from "./project-configs.js";
import { languageOfFile, projectLanguages, type ProjectLanguage } from "./project-languages.js";
import { placedByCaller, projectLayout, type ProjectLayout, type ProjectUnit } from "./projects.js";
import { ownTypeCheckRoots } from "./type-check-units.js";
import { securityScanners, type SecurityScanner } from "./security-scanners.js";
import { findTypeChecker } from "./type-checkers.js";

export interface Choice<T> {
  /** What the call uses, in the order it runs them. */
  picks: T[];
  /** The languages of the target, weightiest first. */
  languages: readonly ProjectLanguage[];
  notes: string[];
  /** Set when nothing fits: the reason, for the nothing_checked note. */
  nothing?: string;
}

export interface LanguageTool {
  name: string;
  language: ProjectLanguage;
  /**
   * Where it runs (projects.ts): the call's path, or a project below it when the path holds several
   * projects, or a project of another language (a monorepo root). Unset: the call's path.
   */
  target?: string;
}

const list = (xs: readonly string[]) => xs.join(", ");
const registered = (name: string | undefined, find: (n: string) => unknown) =>
  name !== undefined && find(name) ? name : undefined;
const languagesNote = (languages: readonly string[]) =>
  `the project's languages: ${list(languages) || "none"}`;

// The per-language decisions below read only the project's files, never the registries: `check` plans with
// them before any adapter is loaded. The choose* functions keep what is registered.

/** The linter of one language in a project: flake8 where the project configures it (and not ruff). */
export function linterFor(language: ProjectLanguage, target: string, root?: string): string {
  return {
    python: () => pythonTools(target, root).linter,
    typescript: () => "eslint",
    javascript: () => "eslint",
    go: () => goLinter(target, root).name,
    rust: () => "clippy",
    ruby: () => "rubocop",
  }[language]();
}

export interface GoLinter {
  name: "govet" | "golangci-lint";
  /** The golangci-lint config the project has (golangci-lint finds it from the module folder). */
  config?: string;
  /** The project configures golangci-lint and it is not installed: govet runs, and `note` says so. */
  note?: string;
}

export const GOLANGCI_INSTALL = "go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@latest";

/**
 * The Go linter of a project: golangci-lint where it has a golangci-lint config (its own verdict; govet is
 * among golangci-lint's default linters), else govet. A configured golangci-lint that is not installed
 * leaves govet, with a note that the verdict is not the project's own.
 */
export function goLinter(target: string, root?: string): GoLinter {
  const top = root ?? dirOf(target);
  const mod = findGoModule(target, top) ?? dirOf(target);
  const config = golangciConfig(mod, target, top);
  if (!config) return { name: "govet" };
  if (findExecutable("golangci-lint", goBinDirs())) return { name: "golangci-lint", config };
  const where = path.relative(mod, config) || config;
  return {
    name: "govet",
    config,
    note:
      `the project's golangci-lint config (${where}) was not honoured: golangci-lint is not installed, so ` +
      `govet ran instead and this verdict is not the project's own; install: ${GOLANGCI_INSTALL}`,
  };
}

/**
 * The lint fixer of one language in a project (lint_fix, fix_all), or why it has none: the fixer of the
 * project's own linter only (ruff, eslint, golangci-lint, clippy, rubocop). A project linted with flake8 has none (flake8
 * fixes nothing, and ruff's defaults are not the project's rules); Go has golangci-lint's where the project
 * configures golangci-lint (and it is installed), else none (go vet fixes nothing; gofmt formats).
 */
export function fixerFor(
  language: ProjectLanguage,
  target = ".",
  root?: string,
): { name?: string; reason?: string } {
  if (language === "go")
    return goLinter(target, root).name === "golangci-lint"
      ? { name: "golangci-lint" }
      : {
          reason:
            "go: go vet fixes nothing (gofmt formats: autoformat); a project that configures golangci-lint " +
            "is fixed with golangci-lint run --fix",
        };
  if (language === "python") {
    const linter = pythonTools(target, root).linter;
    return linter === "ruff"
      ? { name: "ruff" }
      : {
          reason:
            `python: the project lints with ${linter}, which has no fixer (ruff's fixes would apply ruff's ` +
            'rules, not the project\'s; linter: "ruff" runs them anyway)',
        };
  }
  return { name: { typescript: "eslint", javascript: "eslint", rust: "clippy", ruby: "rubocop" }[language] };
}

export interface GoFormatter {
  name: "gofmt" | "golangci-lint";
  /** The golangci-lint config that enables formatters (v2's `formatters.enable`). */
  config?: string;
  /** The formatters it enables (gofumpt, goimports, gci, golines...). */
  formatters?: string[];
  /** The config enables formatters and golangci-lint is not installed: gofmt runs, and `note` says so. */
  note?: string;
}

/**
 * The Go formatter of a project: `golangci-lint fmt` where its golangci-lint v2 config enables formatters
 * (gofumpt, goimports, gci, golines, with the config's settings and exclusions: the project's own verdict,
 * which gofmt's is not: urfave/cli's gofumpt blank line), else gofmt. Enabled but not installed leaves gofmt,
 * with a note that the verdict is gofmt's, not the project's.
 */
export function goFormatter(target: string, root?: string): GoFormatter {
  const top = root ?? dirOf(target);
  const mod = findGoModule(target, top);
  const config = mod ? golangciConfig(mod, target, top) : undefined;
  const formatters = config ? golangciFormatters(config) : [];
  if (!mod || !config || formatters.length === 0) return { name: "gofmt" };
  if (findExecutable("golangci-lint", goBinDirs())) return { name: "golangci-lint", config, formatters };
  const where = path.relative(mod, config) || config;
  return {
    name: "gofmt",
    config,
    formatters,
    note:
      `the project's golangci-lint config (${where}) enables formatters (${list(formatters)}), which ` +
      `golangci-lint fmt runs; golangci-lint is not installed, so gofmt ran instead and this verdict is ` +
      `gofmt's, not the project's; install: ${GOLANGCI_INSTALL}`,
  };
}

const FORMATTERS: Record<ProjectLanguage, string> = {
  python: "ruff",
  typescript: "prettier",
  javascript: "prettier",
  go: "gofmt",
  rust: "rustfmt",
  ruby: "rubocop",
};

/**
 * The formatter of one language, or a reason there is none: black where the project configures it; Prettier
 * only where the project uses Prettier (a config, a dependency, a script), as `check` does; golangci-lint's
 * (`golangci-lint fmt`) where a Go module's golangci-lint config enables formatters (goFormatter).
 */
export function formatterFor(
  language: ProjectLanguage,
  target: string,
  root?: string,
): { name?: string; reason?: string } {
  if ((language === "typescript" || language === "javascript") && !usesPrettier(target, root))
    return {
      reason:
        `${language}: the project does not use Prettier (no config, no dependency, no script), so it is not ` +
        'formatted by default; formatter: "prettier" uses the bundled one',
    };
  if (language === "go") return { name: goFormatter(target, root).name };
  return { name: language === "python" ? pythonTools(target, root).formatter : FORMATTERS[language] };
}

/** The type checkers of one language: each configured Python checker (mypy, pyright) else ty; tsc; go; cargo. */
export function typeCheckersFor(language: ProjectLanguage, target: string, root?: string): string[] {
  let names: string[];
  switch (language) {
    case "python":
      names = pythonTools(target, root).checkers;
      break;
    case "typescript":
      names = ["tsc"];
      break;
    case "javascript":
      // Plain JavaScript is type-checked only as part of a TypeScript project (a tsconfig.json).
      names = fs.existsSync(path.join(dirOf(target), "tsconfig.json")) ? ["tsc"] : [];
      break;
    case "go":
      names = ["go"];
      break;
    case "rust":
      names = ["cargo"];
      break;
    default:
      names = [];
  }
  return names;
}

/** Inline code's language: its file's, else the project's. */
function inlineLanguages(target: string, inlineFile: string): ProjectLanguage[] {
  const own = languageOfFile(inlineFile);
  return own ? [own] : projectLanguages(target);
}

/** One choice per language, deduplicated (ESLint lints TypeScript and JavaScript at once). */
function perLanguage(
  languages: readonly ProjectLanguage[],
  pick: (l: ProjectLanguage) => string | undefined,
): LanguageTool[] {
  const picks: LanguageTool[] = [];
  for (const language of languages) {
    const name = pick(language);
    if (name && !picks.some((p) => p.name === name)) picks.push({ name, language });
  }
  return picks;
}

/** Whether a layout is anything but the path itself as one project (then each pick says where it runs). */
export function holdsSeveral(target: string, layout: ProjectLayout): boolean {
  return layout.units.some((u) => u.dir !== target);
}

/** "projects: py (python), go (go)": where a call's tools ran when its path holds several projects. */
function projectsNote(target: string, units: readonly ProjectUnit[]): string {
  const where = (u: ProjectUnit) => path.relative(target, u.dir) || ".";
  return `projects under ${target}: ${list(units.map((u) => `${where(u)} (${u.languages.join(", ")})`))}`;
}

/** One pick per unit and language, deduplicated per unit (ESLint lints TypeScript and JavaScript at once). */
function perUnit(
  target: string,
  units: readonly ProjectUnit[],
  pick: (l: ProjectLanguage, dir: string) => string | undefined,
  firstOnly = false,
): LanguageTool[] {
  const picks: LanguageTool[] = [];
  for (const unit of units)
    for (const language of unit.languages) {
      const name = pick(language, unit.dir);
      if (!name) continue;
      if (!picks.some((p) => p.name === name && p.target === unit.dir))
        picks.push({ name, language, target: unit.dir });
      if (firstOnly) break;
    }
  return picks;
}

/**
 * lint (and lint_check): one linter per language of the target (`inlineFile`: inline code's own language),
 * run at each of its projects when the target holds several (projects.ts), each `target` set then.
 * No note for a Python-only project's ruff, the long-standing default.
 */
export function chooseLinters(target: string, root?: string, inlineFile?: string): Choice<LanguageTool> {
  if (inlineFile) {
    const languages = inlineLanguages(target, inlineFile);
    const picks = perLanguage(languages, (l) => registered(linterFor(l, target, root), findLinter));
    return picks.length
      ? {
          picks,
          languages,
          notes: picks.length > 1 || picks[0]?.name !== "ruff" ? [lintersNote(picks, languages)] : [],
        }
      : { picks, languages, notes: [], nothing: `no linter lints ${languagesNote(languages)}` };
  }
  const layout = projectLayout(target, root ?? target);
  const languages = projectLanguages(target);
  const several = holdsSeveral(target, layout);
  const picks = perUnit(target, layout.units, (l, dir) => registered(linterFor(l, dir, root), findLinter));
  for (const p of picks) if (!several) delete p.target;
  const goNotes = layout.units
    .filter((u) => u.languages.includes("go"))
    .flatMap((u) => goLinter(u.dir, root).note ?? []);
  const layoutNotes = [...goNotes, ...(several ? [projectsNote(target, layout.units)] : []), ...layout.notes];
  if (picks.length === 0)
    return { picks, languages, notes: layoutNotes, nothing: `no linter lints ${languagesNote(languages)}` };
  const quiet =
    !several && picks.length === 1 && picks[0]?.name === "ruff" && languages.every((l) => l === "python");
  return { picks, languages, notes: [...(quiet ? [] : [lintersNote(picks, languages)]), ...layoutNotes] };
}

/**
 * Where a tool the call names runs: at each project of its languages when the target holds several
 * (projects.ts), else at the target (`target` unset) as before.
 */
export function placeNamed(
  name: string,
  toolLanguages: readonly string[],
  target: string,
  root?: string,
): { picks: LanguageTool[]; notes: string[] } {
  const layout = projectLayout(target, root ?? target);
  const units = layout.units.filter((u) => u.languages.some((l) => toolLanguages.includes(l)));
  if (!holdsSeveral(target, layout) || units.length === 0)
    return { picks: [{ name, language: (toolLanguages[0] ?? "python") as ProjectLanguage }], notes: [] };
  return {
    picks: units.map((u) => ({
      name,
      language: u.languages.find((l) => toolLanguages.includes(l)) as ProjectLanguage,
      target: u.dir,
    })),
    notes: [projectsNote(target, units), ...layout.notes],
  };
}

function lintersNote(picks: readonly LanguageTool[], languages: readonly ProjectLanguage[]): string {
  const names = [...new Set(picks.map((p) => p.name))];
  return `${names.length > 1 ? "linters" : "linter"}: ${list(names)} (${languagesNote(languages)})`;
}

/** The first language that has a tool, with a note naming the languages left to other calls. */
function firstFitting(
  kind: string,
  arg: string,
  languages: readonly ProjectLanguage[],
  pick: (l: ProjectLanguage) => string | undefined,
): Choice<LanguageTool> {
  const all = perLanguage(languages, pick);
  const first = all[0];
  if (!first)
    return { picks: [], languages, notes: [], nothing: `no ${kind} for ${languagesNote(languages)}` };
  const others = all.slice(1);
  const notes = [`${arg}: ${first.name} (${languagesNote(languages)})`];
  if (others.length)
    notes.push(
      `${list(others.map((o) => o.language))} too: pass ${arg} ${list(others.map((o) => `"${o.name}"`))}`,
    );
  return { picks: [first], languages, notes };
}

/**
 * lint_fix and fix_all: the fixer of the weightiest language that has one (fixerFor: the project's own
 * linter's); when the target holds several projects (projects.ts), that of each project, each pick's
 * `target` saying where it runs. Where a language has none, a note (or `nothing`) says why.
 */
export function chooseFixer(target: string, inlineFile?: string, root?: string): Choice<LanguageTool> {
  const reasons = new Set<string>();
  const fixerOf = (l: ProjectLanguage, dir: string) => {
    const own = fixerFor(l, dir, root);
    if (own.reason) reasons.add(own.reason);
    return registered(own.name, findFixer);
  };
  const withReasons = (choice: Choice<LanguageTool>, nothing = `no lint fixer`) =>
    choice.picks.length
      ? { ...choice, notes: [...choice.notes, ...[...reasons].map((r) => `no lint fix for ${r}`)] }
      : { ...choice, nothing: [choice.nothing ?? nothing, ...reasons].join("; ") };
  if (inlineFile) {
    const languages = inlineLanguages(path.dirname(inlineFile), inlineFile);
    return withReasons(firstFitting("lint fixer", "linter", languages, (l) => fixerOf(l, target)));
  }
  const layout = projectLayout(target, root ?? target);
  if (!holdsSeveral(target, layout))
    return withReasons(
      firstFitting("lint fixer", "linter", projectLanguages(target), (l) => fixerOf(l, target)),
    );
  const languages = projectLanguages(target);
  const picks = perUnit(target, layout.units, fixerOf, true);
  const notes = [projectsNote(target, layout.units), ...layout.notes];
  if (picks.length === 0)
    return withReasons({ picks, languages, notes }, `no lint fixer for ${languagesNote(languages)}`);
  return withReasons({
    picks,
    languages,
    notes: [`linters: ${list([...new Set(picks.map((p) => p.name))])}`, ...notes],
  });
}

/**
 * type_check: the first checker of the weightiest language that has one; when the target holds several
 * projects (projects.ts), that of each project, each pick's `target` saying where it runs.
 */
export function chooseTypeChecker(target: string, root?: string): Choice<LanguageTool> {
  const layout = projectLayout(target, root ?? target);
  const checkerOf = (l: ProjectLanguage, dir: string) =>
    typeCheckersFor(l, dir, root).find((n) => findTypeChecker(n));
  if (!holdsSeveral(target, layout)) {
    const choice = firstFitting("type checker", "checker", projectLanguages(target), (l) =>
      checkerOf(l, target),
    );
    // A project that configures both mypy and pyright (pallets/click): type_check runs each, as check does;
    // the first alone hid pyright's 6 findings. Each pick runs at the target, as a project's checker would.
    const first = choice.picks[0];
    const others = first
      ? typeCheckersFor(first.language, target, root).filter((n) => n !== first.name && findTypeChecker(n))
      : [];
    if (!first || others.length === 0) return { ...choice, notes: [...choice.notes, ...layout.notes] };
    const names = [first.name, ...others];
    return {
      ...choice,
      picks: names.map((name) => ({ name, language: first.language, target })),
      // In place of firstFitting's "checker: mypy (python)".
      notes: [
        `checkers: the project configures ${list(names)}: type_check runs each (pass checker "${first.name}" or another to run one)`,
        ...choice.notes.slice(1),
        ...layout.notes,
      ],
    };
  }
  const languages = projectLanguages(target);
  const picks = perUnit(target, layout.units, checkerOf, true);
  const notes = [projectsNote(target, layout.units), ...layout.notes];
  if (picks.length === 0)
    return { picks, languages, notes, nothing: `no type checker for ${languagesNote(languages)}` };
  return { picks, languages, notes: [`checkers: ${list([...new Set(picks.map((p) => p.name))])}`, ...notes] };
}

/**
 * type_check's picks with the nested Python projects that configure a type checker themselves
 * (type-check-units.ts): each of them checked at its own root by its own checkers (`named`: the one the
 * call names), as by hand in its folder; the run around it leaves it out. Each pick says where it runs.
 * Inside a unit its caller placed (check, which plans those projects itself): the picks as given.
 */
export function withNestedTypeChecks(
  picks: readonly LanguageTool[],
  target: string,
  root: string | undefined,
  named?: string,
): LanguageTool[] {
  if (placedByCaller()) return [...picks];
  const out: LanguageTool[] = [];
  const add = (p: LanguageTool) => {
    if (!out.some((o) => o.name === p.name && o.target === p.target)) out.push(p);
  };
  for (const pick of picks) {
    const at = pick.target ?? target;
    add({ ...pick, target: at });
    if (pick.language !== "python") continue;
    for (const dir of ownTypeCheckRoots(at, root ?? target))
      for (const name of named
        ? [named]
        : typeCheckersFor("python", dir, root).filter((n) => findTypeChecker(n)))
        add({ name, language: "python", target: dir });
  }
  // Nothing nested: the picks as they were (a target left unset runs at the call's path).
  return out.length === picks.length ? [...picks] : out;
}

/**
 * format_check: each language's formatter (several), skipping JavaScript/TypeScript without Prettier (a note
 * says so). autoformat takes the first.
 */
export function chooseFormatters(target: string, root?: string): Choice<LanguageTool> {
  const languages = projectLanguages(target);
  const picks: LanguageTool[] = [];
  const notes: string[] = [];
  // A path holding several projects: each language's formatter at each of its projects (projects.ts).
  const layout = projectLayout(target, root ?? target);
  const several = holdsSeveral(target, layout);
  const places = several
    ? layout.units.flatMap((u) => u.languages.map((language) => ({ language, dir: u.dir })))
    : languages.map((language) => ({ language, dir: target }));
  for (const { language, dir } of places) {
    const f = formatterFor(language, dir, root);
    if (f.name && findFormatter(language, f.name))
      picks.push({ name: f.name, language, ...(several && { target: dir }) });
    else notes.push(f.reason ?? `${language}: no formatter is registered`);
  }
  if (several) notes.push(projectsNote(target, layout.units), ...layout.notes);
  if (picks.length === 0)
    return {
      picks,
      languages,
      notes,
      nothing: `no formatter for ${languagesNote(languages)}`,
    };
  return { picks, languages, notes: [`languages detected: ${list(languages)}`, ...new Set(notes)] };
}

/**
 * format_check and autoformat given a language: its formatter (`formatter`, else the project's) at each of
 * its projects when the path holds several, as a named linter (placeNamed): a project's run covers its own
 * files, not those of a project below it (gofmt's of a nested Go module), so the path's run alone missed them.
 */
export function placeFormatter(
  language: ProjectLanguage,
  formatter: string | undefined,
  target: string,
  root?: string,
): { picks: { language: ProjectLanguage; formatter?: string; target?: string }[]; notes: string[] } {
  const layout = projectLayout(target, root ?? target);
  const units = layout.units.filter((u) => u.languages.includes(language));
  const at = (dir: string) => formatter ?? formatterFor(language, dir, root).name;
  if (!holdsSeveral(target, layout) || units.length === 0)
    return { picks: [{ language, formatter: at(target) }], notes: [] };
  return {
    picks: units.map((u) => ({ language, formatter: at(u.dir), target: u.dir })),
    notes: [projectsNote(target, units), ...layout.notes],
  };
}

/** security_scan: every scanner of the target's languages and those for any project, in registration order. */
export function chooseScanners(
  target: string,
  root?: string,
): Choice<SecurityScanner> & { runs: { scanner: SecurityScanner; target: string }[] } {
  const languages = projectLanguages(target);
  const picks: SecurityScanner[] = securityScanners().filter(
    (s) => s.languages === "any" || s.languages.some((l) => languages.includes(l)),
  );
  if (picks.length === 0)
    return {
      picks,
      runs: [],
      languages,
      notes: [],
      nothing: `no security scanner for ${languagesNote(languages)}`,
    };
  // A path holding several projects: each language's scanners at each of its projects (projects.ts), the
  // scanners for any project once over the whole path.
  const layout = projectLayout(target, root ?? target);
  const several = holdsSeveral(target, layout);
  const runs = picks.flatMap((scanner) => {
    const own = scanner.languages;
    if (!several || own === "any") return [{ scanner, target }];
    const units = layout.units.filter((u) => u.languages.some((l) => own.includes(l)));
    return units.length ? units.map((u) => ({ scanner, target: u.dir })) : [{ scanner, target }];
  });
  return { picks, runs, languages, notes: several ? [projectsNote(target, layout.units)] : [] };
}
