/**
 * RuboCop through its warm worker: `lint` (linter "rubocop"), format_check / autoformat (formatter "rubocop":
 * Layout cops' corrections only) and lint_fix (safe: --autocorrect, unsafe: --autocorrect-all). Each file is
 * inspected as `rubocop --format json --stdin FILE` would; the server reads and writes the files itself.
 */
import fs from "node:fs";
import { createTwoFilesPatch } from "diff";
import { ToolError } from "../../errors.js";
import { capList } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { Finding, Severity } from "../../findings/model.js";
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
import { registerLinter, type LintOutcome, type LintRequest } from "../linters.js";
import { registerExternalTool } from "../registry.js";
import {
  rubocopRequest,
  type RubocopCorrection,
  type RubocopFileRun,
  type RubocopRunParams,
} from "./rubocop-worker.js";

registerExternalTool({ name: "rubocop", program: "rubocop", versionArgs: ["--version"] });
registerExternalTool({ name: "ruby", program: "ruby", versionArgs: ["--version"] });

interface JsonOffense {
  severity: string;
  message: string;
  cop_name: string;
  corrected: boolean;
  correctable: boolean;
  location: { start_line: number; start_column: number; last_line: number; last_column: number };
}

/** A finding with RuboCop's own severity (info, refactor, convention, warning, error, fatal) and whether it was corrected. */
export interface RubocopFinding extends Finding {
  level: string;
  corrected: boolean;
  /** The offense's own correction, from its corrector: safe per the cop's Safe/SafeAutoCorrect. */
  correction?: { safe: boolean; edits: RubocopCorrection["edits"] };
}

const SEVERITY: Record<string, Severity> = {
  info: "info",
  refactor: "warning",
  convention: "warning",
  warning: "warning",
  error: "error",
  fatal: "error",
};

/** The offenses of `rubocop --format json` for one file, 1-based as RuboCop reports them (last_column inclusive). */
export function parseRubocopJson(report: string, file: string): RubocopFinding[] | undefined {
  let doc: { files?: { offenses?: JsonOffense[] }[] };
  try {
    doc = JSON.parse(report) as typeof doc;
  } catch {
    return undefined;
  }
  if (!Array.isArray(doc.files)) return undefined;
  return (doc.files[0]?.offenses ?? []).map((o) => ({
    tool: "rubocop",
    file,
    line: o.location.start_line,
    column: o.location.start_column,
    end_line: o.location.last_line,
    end_column: o.location.last_column + 1,
    rule_id: o.cop_name,
    severity: SEVERITY[o.severity] ?? "warning",
    level: o.severity,
    message: o.message,
    correctable: o.correctable,
    corrected: o.corrected,
    docs_url: docsUrl(o.cop_name),
  }));
}

/** RuboCop's documentation page of a core cop (plugins' cops have their own sites). */
function docsUrl(cop: string): string | undefined {
  const [department, name] = cop.split("/");
  if (
    !department ||
    !name ||
    !["Bundler", "Gemspec", "Layout", "Lint", "Metrics", "Migration", "Naming", "Security", "Style"].includes(
      department,
    )
  )
    return undefined;
  return `https://docs.rubocop.org/rubocop/cops_${department.toLowerCase()}.html#${cop.toLowerCase().replace(/\//g, "")}`;
}

interface InspectedFile {
  file: string;
  source: string;
  run: RubocopFileRun;
  findings: RubocopFinding[];
}

/** The files RuboCop inspects under a target, then each one inspected (and corrected, when asked) in the worker. */
async function inspect(
  ctx: ToolContext,
  target: string,
  params: RubocopRunParams,
  command: string,
): Promise<{ files: InspectedFile[]; notes: string[] }> {
  let firstNotes: string[] | undefined;
  let listed = [target];
  if (fs.statSync(target).isDirectory()) {
    const found = await rubocopRequest<string[]>(
      ctx,
      target,
      "targets",
      { paths: [target], config: params.config },
      command,
    );
    listed = found.result;
    firstNotes = found.notes; // the first request says whether the worker was started for this call
  }
  const files = listed.filter((f) => ctx.allowlist.rootOf(f) !== undefined);
  const sources = files.map((file) => ({ path: file, source: fs.readFileSync(file, "utf8") }));
  const { result, notes } = await rubocopRequest<RubocopFileRun[]>(
    ctx,
    target,
    "run",
    { ...params, files: sources },
    command,
  );
  const inspected = result.map((run, i) => {
    const file = files[i] as string;
    const findings = parseRubocopJson(run.report, file);
    if (!findings || run.status === 2)
      throw new ToolError(
        "tool_error",
        `RuboCop failed on ${displayRelative(ctx, file)}: ${firstLine(run.stderr) ?? "no report"}`,
        {
          command,
          output: run.stderr || run.report,
        },
      );
    for (const c of run.corrections ?? []) {
      const f = findings.find((o) => o.rule_id === c.cop && o.line === c.line && o.column === c.column);
      if (f) f.correction = { safe: c.safe, edits: c.edits };
    }
    return { file, source: (sources[i] as { source: string }).source, run, findings };
  });
  return { files: inspected, notes: firstNotes ?? notes };
}

function firstLine(text: string): string | undefined {
  return text.split("\n").find((l) => l.trim());
}

function commandOf(target: string, extra: string[] = []): string {
  return ["rubocop", "--format", "json", ...extra, target].join(" ");
}

async function lint(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  const command = commandOf(req.target);
  const { files, notes } = await inspect(ctx, req.target, { config: req.config, corrections: true }, command);
  const findings = files.flatMap((f) => f.findings);
  return {
    findings,
    tool: "rubocop",
    command,
    returncode: Math.max(0, ...files.map((f) => f.run.status)),
    notes: files.length ? notes : [...notes, "RuboCop found no Ruby file to inspect"],
    extra: { findings: capList(findings).items, files_inspected: files.length },
  };
}

function diffOf(ctx: ToolContext, changes: { file: string; before: string; after: string }[]): string {
  return changes
    .map((c) => {
      const name = displayRelative(ctx, c.file);
      return createTwoFilesPatch(name, name, c.before, c.after, undefined, undefined, { context: 3 }).replace(
        /^Index: .*\n=+\n/,
        "",
      );
    })
    .join("");
}

/** Files whose corrected source differs, with both texts. */
function changesOf(files: InspectedFile[]) {
  return files
    .filter((f) => f.run.corrected !== null && f.run.corrected !== f.source)
    .map((f) => ({ file: f.file, before: f.source, after: f.run.corrected as string }));
}

const LAYOUT = { only: ["Layout"], autocorrect: "safe" as const };

async function formatCheck(ctx: ToolContext, req: FormatRequest): Promise<FormatCheckOutcome> {
  const command = commandOf(req.target, ["--only", "Layout", "--autocorrect", "(corrections not written)"]);
  const { files, notes } = await inspect(ctx, req.target, { ...LAYOUT, config: req.config }, command);
  const changes = changesOf(files);
  return {
    formatted: changes.length === 0,
    unformatted_files: changes.map((c) => displayRelative(ctx, c.file)),
    command,
    output: req.diff ? diffOf(ctx, changes) : undefined,
    notes: [...notes, "RuboCop as a formatter applies the Layout cops' corrections only"],
  };
}

async function formatWrite(
  ctx: ToolContext,
  req: FormatRequest & { dryRun: boolean },
): Promise<FormatWriteOutcome> {
  const command = commandOf(req.target, ["--only", "Layout", "--autocorrect"]);
  const { files, notes } = await inspect(ctx, req.target, { ...LAYOUT, config: req.config }, command);
  const changes = changesOf(files);
  if (!req.dryRun) for (const c of changes) fs.writeFileSync(c.file, c.after);
  return {
    changed_files: changes.map((c) => displayRelative(ctx, c.file)),
    command,
    diff: req.dryRun ? diffOf(ctx, changes) : undefined,
    notes: [...notes, "RuboCop as a formatter applies the Layout cops' corrections only"],
  };
}

function fixStatus(changed: boolean, left: RubocopFinding[], dryRun: boolean): FixStatus {
  if (dryRun) return changed ? "would-fix" : left.length ? "unfixable" : "clean";
  if (changed) return left.length ? "fixable" : "fixed";
  return left.length ? (left.some((f) => f.correctable) ? "fixable" : "unfixable") : "clean";
}

async function fix(ctx: ToolContext, req: FixRequest): Promise<FixOutcome> {
  const autocorrect = req.safety === "unsafe" ? "all" : "safe";
  const command = commandOf(req.target, [autocorrect === "all" ? "--autocorrect-all" : "--autocorrect"]);
  const target = req.files?.length === 1 ? (req.files[0] as string) : req.target;
  if ((req.files?.length ?? 0) > 1)
    throw new ToolError("invalid_input", "files: rubocop lint_fix takes one file or the path's whole tree");
  const { files, notes } = await inspect(ctx, target, { autocorrect, config: req.config }, command);
  const changes = changesOf(files);
  if (!req.dryRun) for (const c of changes) fs.writeFileSync(c.file, c.after);
  const changed = new Set(changes.map((c) => c.file));
  const results: FileFixResult[] = files.map((f) => {
    // Offenses RuboCop corrected are gone; the rest are left (in a dry run, where the fix would leave them).
    const left = f.findings.filter((o) => !o.corrected);
    return {
      file: f.file,
      status: fixStatus(changed.has(f.file), left, req.dryRun),
      errorCount: left.filter((o) => o.severity === "error").length,
      warningCount: left.filter((o) => o.severity !== "error").length,
      messages: left.map((o) => ({
        line: o.line,
        column: o.column,
        rule_id: o.rule_id,
        severity: o.severity === "error" ? "error" : "warning",
        message: o.message,
        fixable: o.correctable,
      })),
    };
  });
  return {
    files: results,
    changed_files: [...changed],
    diff: req.dryRun ? diffOf(ctx, changes) : undefined,
    command,
    notes: [...notes, "leftover offenses are located in the corrected source"],
  };
}

async function candidates(ctx: ToolContext, req: FixRequest): Promise<string[]> {
  if (req.files?.length === 1) return [req.files[0] as string];
  if (!fs.statSync(req.target).isDirectory()) return [req.target];
  const command = commandOf(req.target);
  return (
    await rubocopRequest<string[]>(
      ctx,
      req.target,
      "targets",
      { paths: [req.target], config: req.config },
      command,
    )
  ).result;
}

registerLinter({ name: "rubocop", languages: ["ruby"], lint });
registerFormatter({ language: "ruby", formatter: "rubocop", check: formatCheck, write: formatWrite }, true);
registerFixer({ name: "rubocop", languages: ["ruby"], candidates, fix });
