/** Choosing the tools of a finding call: the linters or the fixer, named or the project's, at each project under the path. */
import path from "node:path";
import { type ToolContext } from "../../../engine/tool.js";
import { findLinter } from "../../../adapters/linters.js";
import { chooseLinters, placeNamed } from "../../../adapters/tool-choice.js";
import { fileFilter } from "../file-filter.js";
import { ToolError } from "../../../errors.js";
import { hasFilesOf, languageOfPath, type ProjectLanguage } from "../../../adapters/project-languages.js";
import type { LintArgs } from "./run-lint.js";
import { findLinter as linterNamed, type LinterAdapter } from "../../../adapters/linters.js";
import { projectLanguages } from "../../../adapters/project-languages.js";
import { linterFor } from "../../../adapters/tool-choice.js";
import { isWithin } from "../../../paths/allowlist.js";
import { dirEntries } from "../../../paths/dir-entries.js";
import { findFixer, type FixerAdapter } from "../../../adapters/fixers.js";
import { chooseFixer } from "../../../adapters/tool-choice.js";

/** The registered fixer of that name, or invalid_input. */
export function requireFixer(name: string): FixerAdapter {
  const fixer = findFixer(name);
  if (!fixer) throw new ToolError("invalid_input", `unknown linter ${name}`);
  return fixer;
}

/**
 * The fixer of a lint_fix / fix_all call: the one named, else the project's (tool-choice.ts), with the notes
 * saying why; `nothing` when no fixer fits the project's languages (the call then fixes and writes nothing).
 */
export function fixerOfCall(
  target: string,
  named: string | undefined,
  inline = false,
  root?: string,
): { fixer?: FixerAdapter; notes: string[]; nothing?: string; placements?: FixerPlacement[] } {
  if (named) {
    const fixer = requireFixer(named);
    if (inline) return { fixer, notes: [] };
    // A path holding several projects: the named fixer at each of its projects (tool-choice.ts).
    const placed = placeNamed(named, fixer.languages, target, root);
    const several = placed.picks.filter((p) => p.target !== undefined);
    return several.length
      ? {
          fixer,
          notes: placed.notes,
          placements: several.map((p) => ({ fixer, target: p.target as string })),
        }
      : { fixer, notes: [] };
  }
  const choice = chooseFixer(target, inline ? target : undefined, root);
  const pick = choice.picks[0];
  if (!pick) return { notes: choice.notes, nothing: choice.nothing };
  if (pick.target !== undefined)
    return {
      fixer: requireFixer(pick.name),
      notes: choice.notes,
      placements: choice.picks.map((p) => ({ fixer: requireFixer(p.name), target: p.target as string })),
    };
  // A Python project's ruff is the long-standing default: no note for it.
  const quiet = pick.name === "ruff" && choice.languages.every((l) => l === "python");
  return { fixer: requireFixer(pick.name), notes: quiet ? [] : choice.notes };
}

/** A fixer and the project it fixes, when the call's path holds several. */
export interface FixerPlacement {
  fixer: FixerAdapter;
  target: string;
}

/**
 * The linters of a call that names none (tool-choice.ts: one per language); with `files`, only those whose
 * languages the files select (so a glob of .py files is not handed to ESLint).
 */
export function lintersForCall(ctx: ToolContext, base: string, args: LintArgs) {
  const root = ctx.allowlist.rootOf(base);
  const choice = chooseLinters(base, root, args.source_code !== undefined ? args.path : undefined);
  if (!args.files?.length || choice.picks.length < 2) return choice;
  const filter = fileFilter(ctx, base, args.files);
  const languages = filesLanguages(base, filter);
  const picks = choice.picks.filter(
    (p) =>
      languages.has(p.language) ||
      (p.name === "eslint" && (languages.has("typescript") || languages.has("javascript"))),
  );
  return picks.length ? { ...choice, picks } : choice;
}

/** A linter the call names: at each of its projects when the path holds several (tool-choice.ts). */
export function namedLinter(ctx: ToolContext, name: string, base: string, inline: boolean) {
  const linter = findLinter(name);
  if (inline || !linter)
    return { picks: [{ name } as { name: string; target?: string }], notes: [] as string[] };
  return placeNamed(name, linter.languages, base, ctx.allowlist.rootOf(base));
}

/** The languages of the files a `files` filter selects under `base` (a bounded walk). */
function filesLanguages(base: string, filter: ((f: string) => boolean) | undefined): Set<ProjectLanguage> {
  const found = new Set<ProjectLanguage>();
  if (!filter) return found;
  let seen = 0;
  const visit = (dir: string) => {
    for (const e of dirEntries(dir)) {
      if (++seen > 20_000) return;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== "node_modules" && !e.name.startsWith(".")) visit(abs);
      } else if (e.isFile() && filter(abs)) {
        // A script by its #! line: the files were named.
        const l = languageOfPath(abs);
        if (l) found.add(l);
      }
    }
  };
  visit(base);
  return found;
}

/** The linter a call without `linter` uses first (explain_rules explains its rules). */
export function defaultLinter(target: string, root?: string): { name: string; notes: string[] } {
  const choice = chooseLinters(target, root);
  return { name: choice.picks[0]?.name ?? "ruff", notes: choice.notes };
}

/** A linter placed for a call over known files: where it runs, and the files there it lints. */
export interface LinterPlacement {
  linter: LinterAdapter;
  /** Its project: the call's folder, or a project below it. */
  target: string;
  /** The files inside `target` of its languages; undefined: the whole project. */
  files?: string[];
}

/**
 * The linters of a call over known files (lint_check; undefined files: the whole folder), as `lint` chooses
 * them (tool-choice.ts): the one named, else one per language, each at every project of its languages under
 * `dir`, with the files inside that project. A file whose language no project claims is linted by its
 * language's linter at `dir`; a linter with no file left is not run.
 */
export function lintersForFiles(
  ctx: ToolContext,
  dir: string,
  files: readonly string[] | undefined,
  named: string | undefined,
): LinterPlacement[] {
  const root = ctx.allowlist.rootOf(dir);
  const picks = named
    ? placeNamed(named, requireLinter(named).languages, dir, root).picks
    : chooseLinters(dir, root).picks;
  const placements: LinterPlacement[] = [];
  const claimed = new Set<string>();
  for (const pick of picks) {
    const linter = requireLinter(pick.name);
    const target = pick.target ?? dir;
    const own = files?.filter((f) => isWithin(target, f) && ofLanguages(f, linter));
    if (own?.length === 0) continue;
    for (const f of own ?? []) claimed.add(f);
    placements.push({ linter, target, ...(own && { files: own }) });
  }
  if (named || !files) return placements;
  // Files no project's linter claimed (a language the project scan did not weigh): their own linter at dir.
  const rest = new Map<string, string[]>();
  for (const f of files.filter((f) => !claimed.has(f)))
    for (const l of projectLanguages(f)) {
      const name = linterFor(l, f, dir);
      rest.set(name, [...(rest.get(name) ?? []), f]);
    }
  for (const [name, own] of rest) {
    const linter = linterNamed(name);
    if (!linter) continue;
    const same = placements.find((p) => p.linter === linter && p.target === dir);
    if (same) same.files = [...new Set([...(same.files ?? []), ...own])].sort();
    else placements.push({ linter, target: dir, files: [...new Set(own)].sort() });
  }
  return placements;
}

/** The registered linter of that name, or invalid_input. */
export function requireLinter(name: string): LinterAdapter {
  const linter = findLinter(name);
  if (!linter) throw new ToolError("invalid_input", `unknown linter ${name}`);
  return linter;
}

/** A file or folder holding files of one of the linter's languages. */
function ofLanguages(file: string, linter: LinterAdapter): boolean {
  return linter.languages.some((l) => hasFilesOf(file, l as ProjectLanguage));
}
