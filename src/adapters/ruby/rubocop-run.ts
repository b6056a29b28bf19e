/**
 * One RuboCop run with seed 003's agent features, shared by lint / lint_fix (linter rubocop), the Layout
 * formatter and the rubocop toolset: inline source, only/except, changed files, contextual corrections, crashes
 * and correction loops per file, and (for corrections) the offenses left in the corrected source. Nothing here
 * writes; callers write the corrected text inside their transaction.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import type { ToolContext } from "../../engine/tool.js";
import { complaintOf } from "../../engine/result.js";
import type { Severity } from "../../findings/model.js";
import { readSourceTexts } from "../../paths/safe-fs.js";
import { displayRelative } from "../display.js";
import { isDirectory, nearestMarkerDir } from "../marker-dir.js";
import { hasFilesMatching } from "../project-languages.js";
import { rubocopRequest } from "./rubocop-worker.js";
import { resultCacheOf } from "../../cache/service.js";
import { cachedRubocopRun } from "./rubocop-cached.js";

import type {
  RubocopFileReport,
  RubocopFinding,
  RubocopJob,
  RubocopOffense,
  RubocopRunResult,
  WorkerFileRun,
} from "./rubocop-types.js";

const SEVERITY: Record<string, Severity> = {
  info: "info",
  refactor: "warning",
  convention: "warning",
  warning: "warning",
  error: "error",
  fatal: "error",
};

/** The offenses of `rubocop --format json` for one file, or undefined when it is no such report. */
export function parseRubocopOffenses(report: string): RubocopOffense[] | undefined {
  let doc: { files?: { offenses?: RubocopOffense[] }[] };
  try {
    doc = JSON.parse(report) as typeof doc;
  } catch {
    return undefined;
  }
  if (!Array.isArray(doc.files)) return undefined;
  return doc.files[0]?.offenses ?? [];
}

/**
 * An offense's message on one line: a parenthesized note on its next line joins the first (Lint/Syntax's
 * "unexpected token tCOMMA\n(Using Ruby 2.6 parser; configure using `TargetRubyVersion` ...)"), which reports
 * that show first lines only would drop, and valid newer Ruby would read as a syntax error. Other lines stay.
 */
export function offenseMessage(message: string): string {
  return message.replace(/^([^\n]*)\n[ \t]*(\([^\n]*\))[ \t]*(?=\n|$)/, "$1 $2");
}

/** An offense as a finding, 1-based as RuboCop reports it (last_column inclusive, end_column exclusive). */
export function offenseFinding(o: RubocopOffense, file: string): RubocopFinding {
  return {
    tool: "rubocop",
    file,
    line: o.location.start_line,
    column: o.location.start_column,
    end_line: o.location.last_line,
    end_column: o.location.last_column + 1,
    rule_id: o.cop_name,
    severity: SEVERITY[o.severity] ?? "warning",
    level: o.severity,
    message: offenseMessage(o.message),
    correctable: o.correctable,
    corrected: o.corrected,
    ...(o.correction ? { correction: o.correction } : {}),
    docs_url: rubocopDocsUrl(o.cop_name),
  };
}

const CORE_DEPARTMENTS = [
  "Bundler",
  "Gemspec",
  "Layout",
  "Lint",
  "Metrics",
  "Migration",
  "Naming",
  "Security",
  "Style",
];

/** RuboCop's documentation page of a core cop (plugins' cops have their own sites), as --show-docs-url prints it. */
export function rubocopDocsUrl(cop: string): string | undefined {
  const [department, name] = cop.split("/");
  if (!department || !name || !CORE_DEPARTMENTS.includes(department)) return undefined;
  return `https://docs.rubocop.org/rubocop/cops_${department.toLowerCase()}.html#${cop.toLowerCase().replace(/[^a-z]/g, "")}`;
}

/** The command line the run stands for (shown, never run). */
export function rubocopCommand(job: RubocopJob): string {
  const rules = job.options?.rules;
  return [
    "rubocop",
    "--format",
    "json",
    ...(job.autocorrect ? [job.autocorrect === "all" ? "--autocorrect-all" : "--autocorrect"] : []),
    ...(rules?.only?.length ? ["--only", rules.only.join(",")] : []),
    ...(rules?.except?.length ? ["--except", rules.except.join(",")] : []),
    ...(job.options?.source ? ["--stdin", job.options.source.path] : [job.target]),
  ].join(" ");
}

/** The files a job covers: RuboCop's own targets under the path (narrowed to changed files), none for inline code. */
export async function jobFiles(
  ctx: ToolContext,
  job: RubocopJob,
  command = rubocopCommand(job),
): Promise<{ files: string[]; notes?: string[] }> {
  if (job.options?.source) return { files: [] };
  let listed = [job.target];
  let notes: string[] | undefined;
  if (fs.statSync(job.target).isDirectory()) {
    const found = await rubocopRequest<string[]>(
      ctx,
      job.target,
      "targets",
      { paths: [job.target], config: job.config },
      command,
    );
    listed = found.result;
    notes = found.notes; // the first request says whether the worker was started for this call
  }
  // `changed`, and `files` as the tool layer resolved them: only those of RuboCop's own targets.
  for (const only of [job.options?.changedFiles, job.options?.files]) {
    if (!only) continue;
    const set = new Set(only);
    listed = listed.filter((f) => set.has(f));
  }
  return { files: listed.filter((f) => ctx.allowlist.rootOf(f) !== undefined), notes };
}

/** The files of a job with their text. */
async function sourcesOf(
  ctx: ToolContext,
  job: RubocopJob,
  command: string,
): Promise<{ files: { path: string; source: string; on_disk?: boolean }[]; notes?: string[] }> {
  const inline = job.options?.source;
  if (inline) return { files: [{ path: inline.path, source: inline.code }] };
  const { files, notes } = await jobFiles(ctx, job, command);
  // Files on disk are inspected by RuboCop as the CLI does (cops that look at the file itself run); their
  // text is still read here, through the allowlist, for corrections and diffs.
  return {
    files: readSourceTexts(ctx.allowlist, files).map((source, i) => ({
      path: files[i] as string,
      source,
      on_disk: true,
    })),
    notes,
  };
}

/**
 * The note for a job RuboCop runs with its default configuration: no --config, no .rubocop.yml from the
 * target up to the allowed root, none below it (sinatra/mustermann: 3,649 offenses of RuboCop's defaults,
 * not the project's). Undefined when a config applies.
 */
export function noConfigNote(ctx: ToolContext, job: RubocopJob): string | undefined {
  if (job.config) return undefined;
  const target = job.options?.source?.path ?? job.target;
  const allowedRoot = ctx.allowlist.rootOf(target) ?? target;
  if (nearestMarkerDir(target, allowedRoot, ".rubocop.yml")) return undefined;
  if (isDirectory(target) && hasFilesMatching(target, /^\.rubocop\.yml$/)) return undefined;
  const base = isDirectory(target) ? target : path.dirname(target);
  return (
    `no .rubocop.yml ${base === allowedRoot ? `in ${base}` : `between ${base} and ${allowedRoot}`}: ` +
    "RuboCop ran with its default configuration, not the project's"
  );
}

/** Runs a job in the project's warm worker. Unknown cop names are invalid_input; a file RuboCop cannot report on is tool_error. */
export async function runRubocop(ctx: ToolContext, job: RubocopJob): Promise<RubocopRunResult> {
  const run = await runJob(ctx, job);
  const note = noConfigNote(ctx, job);
  if (!note) return run;
  // After the note on which RuboCop ran, as ESLint's config note follows its version's.
  const notes = [...run.notes];
  notes.splice(Math.min(1, notes.length), 0, note);
  return { ...run, notes };
}

async function runJob(ctx: ToolContext, job: RubocopJob): Promise<RubocopRunResult> {
  const command = rubocopCommand(job);
  // Inspections (no correction, no inline code) go through the result cache, file by file.
  const cache = job.autocorrect || job.options?.source ? undefined : resultCacheOf(ctx);
  if (cache)
    return cachedRubocopRun(ctx, cache, job, command, {
      listFiles: async () => (await jobFiles(ctx, job, command)).files,
      inspect: (files) => inspectFiles(ctx, job, command, files),
      report: (file, run, source) => fileReport(ctx, job, command, file, source, run),
    });
  const { files, notes: firstNotes } = await sourcesOf(ctx, job, command);
  if (files.length === 0) return { files: [], notes: firstNotes ?? [], command };
  const { runs, notes } = await inspectFiles(ctx, job, command, files);
  const reports = runs.map((run, i) => {
    const { path: file, source } = files[i] as { path: string; source: string };
    return fileReport(ctx, job, command, file, source, run);
  });
  return { files: reports, notes: firstNotes ?? notes, command };
}

/** The worker's run of a job on these files, one answer per file in order. */
async function inspectFiles(
  ctx: ToolContext,
  job: RubocopJob,
  command: string,
  files: { path: string; source: string; on_disk?: boolean }[],
): Promise<{ runs: WorkerFileRun[]; notes: string[] }> {
  const rules = job.options?.rules;
  const { result, notes } = await rubocopRequest<WorkerFileRun[]>(
    ctx,
    job.options?.source?.path ?? job.target,
    "run",
    {
      autocorrect: job.autocorrect,
      leftovers: job.leftovers,
      only: rules?.only,
      except: rules?.except,
      config: job.config,
      contextual: job.options?.contextual === true,
      corrections: job.corrections !== false,
      files,
    },
    command,
  );
  return { runs: result, notes };
}

/** One file's report from the worker's answer (source: a string, or read when asked for). */
function fileReport(
  ctx: ToolContext,
  job: RubocopJob,
  command: string,
  file: string,
  source: string | (() => string),
  run: WorkerFileRun,
): RubocopFileReport {
  const contextual = job.options?.contextual === true;
  const offenses = parseRubocopOffenses(run.report);
  if (run.status === 2 && /Unrecognized cop or department/.test(run.stderr))
    throw new ToolError("invalid_input", `only/except: ${firstLine(run.stderr)}`, {
      command,
      output: run.stderr,
    });
  if (!offenses || (run.status === 2 && !run.loop))
    throw new ToolError(
      "tool_error",
      `RuboCop failed on ${displayRelative(ctx, file)}: ${firstLine(run.stderr) ?? "no report"}`,
      { command, output: run.stderr || run.report },
    );
  for (const c of run.corrections ?? []) {
    if ("error" in c) continue;
    const o = offenses.find(
      (x) => x.cop_name === c.cop && x.location.start_line === c.line && x.location.start_column === c.column,
    );
    if (!o) continue;
    o.correction = { safe: c.safe, edits: c.edits };
    // Held back while editing: reported with its edits, not corrected (see ruby/rubocop_contextual.rb).
    if (c.contextual && !contextual) o.correctable = false;
  }
  if (!run.corrections && run.contextual_cops?.length && !contextual) {
    const held = new Set(run.contextual_cops);
    for (const o of offenses) if (held.has(o.cop_name)) o.correctable = false;
  }
  const text = typeof source === "string" ? () => source : source;
  const report: RubocopFileReport = {
    file,
    source: "",
    corrected: undefined,
    offenses,
    findings: offenses.map((o) => offenseFinding(o, file)),
    errors: run.errors ?? [],
    warnings: run.warnings ?? [],
    status: run.status,
    ...(run.make_executable && { makeExecutable: true }),
  };
  // The source is read only by those who use it (a cached inspection never needs it).
  let read: string | undefined;
  Object.defineProperty(report, "source", { enumerable: true, get: () => (read ??= text()) });
  if (job.autocorrect) report.corrected = run.corrected ?? text();
  return report;
}

function firstLine(text: string): string | undefined {
  return complaintOf(text, (l) => l.trim() !== "");
}

/**
 * At most `max` items per cop across the list (in order), as --max-offenses-per-cop lists them; the rest are
 * counted per cop. No max: everything listed.
 */
export function capPerCop<T>(
  items: readonly T[],
  copOf: (item: T) => string,
  max: number | undefined,
): { listed: T[]; unreported: Record<string, number> } {
  if (max === undefined) return { listed: [...items], unreported: {} };
  const seen = new Map<string, number>();
  const unreported: Record<string, number> = {};
  const listed = items.filter((item) => {
    const cop = copOf(item);
    const n = (seen.get(cop) ?? 0) + 1;
    seen.set(cop, n);
    if (n <= max) return true;
    unreported[cop] = (unreported[cop] ?? 0) + 1;
    return false;
  });
  return { listed, unreported };
}
