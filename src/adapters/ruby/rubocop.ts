/**
 * RuboCop through its warm worker: `lint` (linter "rubocop"), format_check / autoformat (formatter "rubocop":
 * Layout cops' corrections only) and lint_fix (safe: --autocorrect, unsafe: --autocorrect-all). Each file is
 * inspected as `rubocop --format json --stdin FILE` would; the server reads and writes the files itself.
 */
import { firstChangedLine } from "../../findings/format-findings.js";
import fs from "node:fs";
import { createTwoFilesPatch } from "diff";
import { ToolError } from "../../errors.js";
import { capList } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { rewriteSource } from "../../paths/safe-fs.js";
import { displayRelative } from "../display.js";
import {
  registerFixer,
  type FileFixResult,
  type FixOutcome,
  type FixRequest,
  type FixStatus,
} from "../fixers.js";
import {
  registerFormatter,
  type FormatCheckOutcome,
  type FormatRequest,
  type FormatWriteOutcome,
} from "../formatters.js";
import type { LinterCapabilities } from "../lint-options.js";
import { registerLinter, type LintOutcome, type LintRequest } from "../linters.js";
import { registerExternalTool } from "../registry.js";
import { capPerCop, jobFiles, offenseFinding, parseRubocopOffenses, runRubocop } from "./rubocop-run.js";
import type { RubocopFileReport, RubocopFinding, RubocopJob } from "./rubocop-types.js";

export type { RubocopFinding } from "./rubocop-types.js";

registerExternalTool({ name: "rubocop", program: "rubocop", versionArgs: ["--version"] });
registerExternalTool({ name: "ruby", program: "ruby", versionArgs: ["--version"] });

/** Every agent feature: inline code, only/except, changed files, contextual cops, edits, explanations. */
export const RUBOCOP_CAPABILITIES: LinterCapabilities = {
  inlineSource: true,
  ruleScope: true,
  contextual: true,
  explain: true,
  corrections: true,
};

/** The offenses of `rubocop --format json` for one file, 1-based as RuboCop reports them (last_column inclusive). */
export function parseRubocopJson(report: string, file: string): RubocopFinding[] | undefined {
  return parseRubocopOffenses(report)?.map((o) => offenseFinding(o, file));
}

/**
 * Whether a lint shows corrections: offenses are listed (format full, agent arguments, inline code) or a
 * SARIF log carries them as fixes (not `check` without `--sarif`, which reads its logs for findings only).
 * Otherwise the worker skips the investigation that computes them.
 */
function showsCorrections(ctx: ToolContext, req: LintRequest): boolean {
  const o = req.options;
  return (
    req.args.format === "full" ||
    (req.args.output === "sarif" && !ctx.config.sarifWithoutFixes) ||
    o?.source !== undefined ||
    o?.rules !== undefined ||
    o?.changedFiles !== undefined ||
    o?.maxPerRule !== undefined
  );
}

async function lint(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  const { files, notes, command, cache, version } = await runRubocop(ctx, {
    target: req.target,
    config: req.config,
    options: req.options,
    corrections: showsCorrections(ctx, req),
  });
  const findings = files.flatMap((f) => f.findings);
  const capped = capPerCop(findings, (f) => f.rule_id, req.options?.maxPerRule);
  const errors = files.flatMap((f) => f.errors);
  return {
    findings,
    tool: "rubocop",
    command,
    returncode: Math.max(0, ...files.map((f) => f.status)),
    cache,
    // The worker's RuboCop (the project's bundle, or the one on PATH), not a `rubocop --version` run
    // (a Ruby start, about a second) of whichever copy PATH finds first.
    ...(version ? { version: () => Promise.resolve(version) } : {}),
    notes: [
      ...notes,
      ...(files.length ? [] : ["RuboCop found no Ruby file to inspect"]),
      ...errors.map((e) => `RuboCop error: ${e}`),
    ],
    extra: {
      findings: capList(capped.listed).items,
      files_inspected: files.length,
      ...(req.options?.maxPerRule !== undefined ? { unreported_offenses: capped.unreported } : {}),
      ...(errors.length ? { errors } : {}),
    },
  };
}

/** What a correction changes in a file: its text, and whether the script becomes executable. */
export interface RubocopChange {
  file: string;
  before: string;
  after: string;
  makeExecutable?: boolean;
}

/** A change's unified diff; a script made executable shows as git shows a mode change. */
export function changeDiff(name: string, c: RubocopChange): string {
  const mode = c.makeExecutable
    ? `diff --git a/${name} b/${name}\nold mode ${modeOf(c.file)}\nnew mode ${modeOf(c.file, 0o111)}\n`
    : "";
  const text =
    c.after === c.before
      ? ""
      : createTwoFilesPatch(name, name, c.before, c.after, undefined, undefined, { context: 3 }).replace(
          /^Index: .*\n=+\n/,
          "",
        );
  return mode + text;
}

function modeOf(file: string, add = 0): string {
  return `100${((fs.statSync(file).mode | add) & 0o777).toString(8)}`;
}

function diffOf(ctx: ToolContext, changes: RubocopChange[]): string {
  return changes.map((c) => changeDiff(displayRelative(ctx, c.file), c)).join("");
}

/** Files whose correction changes their text or makes them executable, with both texts. */
export function changesOf(files: RubocopFileReport[]): RubocopChange[] {
  return files
    .filter((f) => (f.corrected !== undefined && f.corrected !== f.source) || f.makeExecutable)
    .map((f) => ({
      file: f.file,
      before: f.source,
      after: f.corrected ?? f.source,
      ...(f.makeExecutable && { makeExecutable: true }),
    }));
}

/** Writes corrections (race-safe, only what changed); a script is made executable as `rubocop -a` does. */
export function writeChanges(ctx: ToolContext, changes: RubocopChange[]): void {
  for (const c of changes) {
    const mode = c.makeExecutable ? (fs.statSync(c.file).mode | 0o111) & 0o7777 : undefined;
    rewriteSource(ctx.allowlist, c.file, c.before, c.after, mode);
  }
}

function layoutJob(req: FormatRequest): RubocopJob {
  return {
    target: req.target,
    config: req.config,
    options: { rules: { only: ["Layout"] }, contextual: true },
    autocorrect: "safe",
    // The corrected text is all a format check reads: no per-offense edits.
    corrections: false,
  };
}

async function formatCheck(ctx: ToolContext, req: FormatRequest): Promise<FormatCheckOutcome> {
  const { files, notes, command } = await runRubocop(ctx, layoutJob(req));
  const changes = changesOf(files);
  return {
    formatted: changes.length === 0,
    unformatted_files: changes.map((c) => displayRelative(ctx, c.file)),
    command: `${command} (corrections not written)`,
    output: req.diff ? diffOf(ctx, changes) : undefined,
    notes: [...notes, "RuboCop as a formatter applies the Layout cops' corrections only"],
    // Known from the corrected text: SARIF and `check` need no second run for a diff.
    first_lines: new Map(changes.map((c) => [c.file, firstChangedLine(c.before, c.after) ?? 1])),
  };
}

async function formatWrite(
  ctx: ToolContext,
  req: FormatRequest & { dryRun: boolean },
): Promise<FormatWriteOutcome> {
  const { files, notes, command } = await runRubocop(ctx, layoutJob(req));
  const changes = changesOf(files);
  if (!req.dryRun) writeChanges(ctx, changes);
  return {
    changed_files: changes.map((c) => displayRelative(ctx, c.file)),
    command,
    diff: req.dryRun ? diffOf(ctx, changes) : undefined,
    notes: [...notes, "RuboCop as a formatter applies the Layout cops' corrections only"],
  };
}

function fixStatus(changed: boolean, left: RubocopFinding[], errors: string[], dryRun: boolean): FixStatus {
  if (errors.length && !changed) return "error";
  if (dryRun) return changed ? "would-fix" : left.length ? "unfixable" : "clean";
  if (changed) return left.length ? "fixable" : "fixed";
  return left.length ? (left.some((f) => f.correctable) ? "fixable" : "unfixable") : "clean";
}

/** A correction job of a lint_fix request: safe (--autocorrect) or unsafe (--autocorrect-all), leftovers re-inspected. */
export function correctionJob(req: FixRequest, target = req.target): RubocopJob {
  return {
    target,
    config: req.config,
    options: req.options,
    autocorrect: req.safety === "unsafe" ? "all" : "safe",
    leftovers: true,
  };
}

/** The target of a lint_fix: its one file, or the whole path (narrowed to the files `files` matched). */
function fixTarget(req: FixRequest): string {
  if (req.options?.files) return req.target;
  if ((req.files?.length ?? 0) > 1)
    throw new ToolError("invalid_input", "files: rubocop lint_fix takes one file or the path's whole tree");
  return req.files?.length === 1 ? (req.files[0] as string) : req.target;
}

/** Inline code that a cop crashed on cannot come back as plain corrected text: the call fails. */
export function failOnInlineCrash(files: RubocopFileReport[], command: string): void {
  const errors = files.flatMap((f) => f.errors);
  if (errors.length)
    throw new ToolError("tool_error", `RuboCop could not correct the inline code: ${errors[0]}`, {
      command,
      output: errors.join("\n"),
    });
}

async function fix(ctx: ToolContext, req: FixRequest): Promise<FixOutcome> {
  const inline = req.options?.source;
  const { files, notes, command } = await runRubocop(
    ctx,
    correctionJob(req, inline ? req.target : fixTarget(req)),
  );
  if (inline) failOnInlineCrash(files, command);
  const changes = changesOf(files);
  if (!req.dryRun && !inline) writeChanges(ctx, changes);
  const changed = new Set(changes.map((c) => c.file));
  const leftovers = files.flatMap((f) => f.findings);
  // Leftovers after a fix: at most max_per_rule per cop (default 5) listed.
  const cap = capPerCop(leftovers, (f) => f.rule_id, req.options?.maxPerRule);
  const listed = new Set(cap.listed);
  const results: FileFixResult[] = files.map((f) => {
    const left = f.findings;
    return {
      file: f.file,
      status: fixStatus(changed.has(f.file), left, f.errors, req.dryRun),
      errorCount: left.filter((o) => o.severity === "error").length,
      warningCount: left.filter((o) => o.severity !== "error").length,
      messages: left
        .filter((o) => listed.has(o))
        .map((o) => ({
          line: o.line,
          column: o.column,
          end_line: o.end_line,
          end_column: o.end_column,
          rule_id: o.rule_id,
          severity: o.severity === "error" ? ("error" as const) : ("warning" as const),
          message: o.message,
          fixable: o.correctable,
          ...(o.correction && { correction: o.correction }),
          ...(o.docs_url && { docs_url: o.docs_url }),
        })),
    };
  });
  const errors = files.flatMap((f) => f.errors.map((e) => `RuboCop error: ${e}`));
  const unreported = Object.entries(cap.unreported).map(([cop, n]) => `${cop}: ${n} more not listed`);
  return {
    files: results,
    changed_files: inline ? [] : [...changed],
    diff: req.dryRun && !inline ? diffOf(ctx, changes) : undefined,
    correctedSource: inline ? (files[0]?.corrected ?? inline.code) : undefined,
    command,
    notes: [...notes, "leftover offenses are located in the corrected source", ...errors, ...unreported],
  };
}

async function candidates(ctx: ToolContext, req: FixRequest): Promise<string[]> {
  if (req.options?.source) return [];
  return (await jobFiles(ctx, correctionJob(req, fixTarget(req)))).files;
}

registerLinter({
  name: "rubocop",
  languages: ["ruby"],
  capabilities: RUBOCOP_CAPABILITIES,
  lint,
  cachesPerFile: true,
});
registerFormatter({ language: "ruby", formatter: "rubocop", check: formatCheck, write: formatWrite }, true);
registerFixer({ name: "rubocop", languages: ["ruby"], capabilities: RUBOCOP_CAPABILITIES, candidates, fix });
