/**
 * lint_fix / fix_all with clippy: `cargo clippy --fix` (rustfix applies the machine-applicable suggestions) inside
 * the calling tool's transaction. A dry run writes nothing: it applies the same safe suggestions in memory to
 * show the diff, and lists what would be left.
 */
import fs from "node:fs";
import path from "node:path";
import { createTwoFilesPatch } from "diff";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import { rewriteSource } from "../../paths/safe-fs.js";
import type { InlineSource, RuleScope } from "../lint-options.js";
import { inRuleScope } from "../rule-scope.js";
import { displayRelative } from "../display.js";
import { CLIPPY_CAPABILITIES } from "./clippy.js";
import {
  registerFixer,
  type FileFixResult,
  type FixMessage,
  type FixOutcome,
  type FixRequest,
  type FixStatus,
} from "../fixers.js";
import { requireCrateDir, workspaceRoot } from "./cargo-env.js";
import {
  isCompileError,
  parseCargoMessages,
  shortFormat,
  type CorrectionEdit,
  type RustFinding,
} from "./cargo-messages.js";
import { runCargo } from "./cargo-run.js";
import { clippyArgs } from "./clippy.js";
import { scratchCrate } from "./clippy-inline.js";

export function clippyFixArgs(): string[] {
  return [
    "clippy",
    "--fix",
    "--allow-dirty",
    "--allow-staged",
    "--allow-no-vcs",
    "--message-format=json",
    "--quiet",
  ];
}

/** Every .rs file of a crate (what a fix may rewrite), without the build output or hidden folders. */
export function crateSources(crateDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith(".") || e.name === "target") continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith(".rs")) out.push(p);
    }
  };
  walk(crateDir);
  return out.sort();
}

/** Offset in `text` of a 1-based line and character column (rustc counts columns in characters). */
function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf("\n", offset);
    if (nl === -1) return text.length;
    offset = nl + 1;
  }
  return (
    offset +
    [...text.slice(offset, text.indexOf("\n", offset) === -1 ? undefined : text.indexOf("\n", offset))]
      .slice(0, column - 1)
      .join("").length
  );
}

/**
 * Applies edits to text as rustfix does for one pass: all of a diagnostic's edits or none, and a diagnostic
 * whose edits overlap one already taken is skipped.
 */
export function applyCorrections(text: string, corrections: CorrectionEdit[][]): string {
  const taken: { start: number; end: number; text: string }[] = [];
  for (const edits of corrections) {
    const spans = edits.map((e) => ({
      start: offsetOf(text, e.line, e.column),
      end: offsetOf(text, e.end_line, e.end_column),
      text: e.text,
    }));
    if (spans.some((s) => taken.some((t) => s.start < t.end && t.start < s.end))) continue;
    taken.push(...spans);
  }
  taken.sort((a, b) => b.start - a.start);
  let out = text;
  for (const t of taken) out = out.slice(0, t.start) + t.text + out.slice(t.end);
  return out;
}

function message(f: RustFinding): FixMessage {
  return {
    line: f.line,
    column: f.column,
    rule_id: f.rule_id || null,
    severity: f.severity === "error" ? "error" : "warning",
    message: f.message,
    fixable: f.correction?.safe === true,
  };
}

function status(changed: boolean, left: FixMessage[], dryRun: boolean): FixStatus {
  if (dryRun) return changed ? "would-fix" : left.length ? "unfixable" : "clean";
  if (changed) return left.length ? "fixable" : "fixed";
  return left.length ? (left.some((m) => m.fixable) ? "fixable" : "unfixable") : "clean";
}

function fileResults(
  files: string[],
  left: RustFinding[],
  changed: Set<string>,
  dryRun: boolean,
  diffs?: Map<string, string>,
): FileFixResult[] {
  return files.map((file) => {
    const messages = left.filter((f) => f.file === file).map(message);
    const diff = diffs?.get(file);
    return {
      file,
      status: status(changed.has(file), messages, dryRun),
      errorCount: messages.filter((m) => m.severity === "error").length,
      warningCount: messages.filter((m) => m.severity === "warning").length,
      messages,
      ...(diff && { diff }),
    };
  });
}

/**
 * clippy's machine-applicable suggestions in the rule scope, applied in memory in one pass as rustfix does:
 * each changed file's text before and after, and its unified diff (what a dry run shows, and what a
 * rule-scoped fix writes).
 */
async function suggestionsApplied(
  ctx: ToolContext,
  crate: string,
  workspace: string,
  sources: string[],
  env: Record<string, string>,
  rules: RuleScope | undefined,
) {
  const { run, args, notes } = await runCargo(
    ctx,
    crate,
    clippyArgs(),
    displayCommand("cargo", clippyArgs()),
    env,
  );
  const command = displayCommand("cargo", args);
  const { findings } = parseCargoMessages(run.stdout, workspace, "clippy");
  if (findings.some(isCompileError) || (run.returncode !== 0 && findings.length === 0))
    throw compileFailure(ctx, command, run, findings);
  const applies = (f: RustFinding) => f.correction?.safe === true && inRuleScope(f.rule_id, rules);
  const texts = new Map<string, { before: string; after: string }>();
  const diffs = new Map<string, string>();
  for (const file of sources) {
    const safe = findings.filter((f) => f.file === file && applies(f)).map((f) => f.correction?.edits ?? []);
    if (!safe.length) continue;
    const before = fs.readFileSync(file, "utf8");
    const after = applyCorrections(before, safe);
    if (after === before) continue;
    texts.set(file, { before, after });
    const name = displayRelative(ctx, file);
    diffs.set(
      file,
      createTwoFilesPatch(name, name, before, after, undefined, undefined, { context: 3 }).replace(
        /^Index: .*\n=+\n/,
        "",
      ),
    );
  }
  const left = findings.filter((f) => !(applies(f) && texts.has(f.file)));
  return { run, command, notes, texts, diffs, left };
}

function compileFailure(
  ctx: ToolContext,
  command: string,
  run: { stdout: string; stderr: string; returncode: number | null; truncated: boolean },
  findings: RustFinding[],
) {
  const first = findings.find(isCompileError);
  return new ToolError(
    "tool_error",
    first
      ? `the crate does not compile, so clippy could not fix it: ${shortFormat(first, displayRelative(ctx, first.file))}`
      : `cargo clippy --fix failed (exit ${run.returncode}); see output`,
    {
      command,
      returncode: run.returncode,
      output: combinedOutput(run.stdout, run.stderr),
      truncated: run.truncated,
    },
  );
}

/** Inline code corrected by `cargo clippy --fix` in a scratch copy of its workspace; nothing is written. */
async function fixInline(ctx: ToolContext, req: FixRequest, source: InlineSource): Promise<FixOutcome> {
  if (req.options?.rules)
    throw new ToolError("invalid_input", "clippy: only/except cannot narrow a fix of inline source_code");
  const scratch = scratchCrate(ctx, source);
  try {
    const args = scratch.allTargets ? [...clippyFixArgs(), "--all-targets"] : clippyFixArgs();
    const { run, args: ran } = await runCargo(ctx, scratch.crate, args, displayCommand("cargo", args), {
      CLIPPY_CONF_DIR: scratch.crate,
    });
    const command = displayCommand("cargo", ran);
    const { findings } = parseCargoMessages(run.stdout, scratch.workspace, "clippy");
    const own = findings.filter((f) => f.file === scratch.file).map((f) => ({ ...f, file: source.path }));
    if (own.some(isCompileError) || (run.returncode !== 0 && findings.length === 0))
      throw compileFailure(ctx, command, run, own);
    const corrected = fs.readFileSync(scratch.file, "utf8");
    const changed = new Set(corrected !== source.code ? [source.path] : []);
    return {
      files: fileResults([source.path], own, changed, true),
      changed_files: [],
      correctedSource: corrected,
      command,
      returncode: run.returncode,
      truncated: run.truncated,
      notes: ["corrected in a scratch copy of the crate's workspace (the project is not written)"],
    };
  } finally {
    scratch.remove();
  }
}

async function fix(ctx: ToolContext, req: FixRequest): Promise<FixOutcome> {
  if (req.options?.source) return fixInline(ctx, req, req.options.source);
  const crate = requireCrateDir(req.target, "clippy");
  if (req.files?.length)
    throw new ToolError(
      "invalid_input",
      "files: clippy --fix fixes the whole crate; pass the crate directory as path",
    );
  const workspace = workspaceRoot(crate, ctx.allowlist.rootOf(crate) ?? crate);
  const sources = crateSources(crate);
  const notes: string[] = [];
  if (req.safety === "unsafe")
    notes.push(
      "clippy --fix applies only machine-applicable suggestions; the others are listed with unsafe corrections",
    );
  const env = { CLIPPY_CONF_DIR: crate };
  const rules = req.options?.rules;
  // `changed`: only the changed files' suggestions are applied (and only their problems listed).
  const changedOnly = req.options?.changedFiles && new Set(req.options.changedFiles);
  if (req.dryRun || rules || changedOnly) {
    const scoped = changedOnly ? sources.filter((f) => changedOnly.has(f)) : sources;
    const applied = await suggestionsApplied(ctx, crate, workspace, scoped, env, rules);
    if (changedOnly) applied.left = applied.left.filter((f) => changedOnly.has(f.file));
    const changed = new Set(applied.texts.keys());
    // A rule-scoped fix writes the in-memory result itself (clippy --fix cannot be told which lints to apply).
    if (!req.dryRun)
      for (const [file, t] of applied.texts) rewriteSource(ctx.allowlist, file, t.before, t.after);
    return {
      files: fileResults(scoped, applied.left, changed, req.dryRun, req.dryRun ? applied.diffs : undefined),
      changed_files: [...changed],
      ...(req.dryRun && { diff: [...applied.diffs.values()].join("") }),
      command: req.dryRun
        ? applied.command
        : `${applied.command} (suggestions in scope applied by the server)`,
      returncode: applied.run.returncode,
      truncated: applied.run.truncated,
      notes: [
        ...applied.notes,
        ...notes,
        "clippy's machine-applicable suggestions are applied in one pass, as rustfix does",
      ],
    };
  }
  const before = new Map(sources.map((f) => [f, fs.readFileSync(f, "utf8")]));
  const {
    run,
    args,
    notes: runNotes,
  } = await runCargo(ctx, crate, clippyFixArgs(), displayCommand("cargo", clippyFixArgs()), env);
  const command = displayCommand("cargo", args);
  const { findings } = parseCargoMessages(run.stdout, workspace, "clippy");
  if (findings.some(isCompileError) || (run.returncode !== 0 && findings.length === 0))
    throw compileFailure(ctx, command, run, findings);
  const changed = new Set(sources.filter((f) => fs.readFileSync(f, "utf8") !== before.get(f)));
  return {
    files: fileResults(sources, findings, changed, false),
    changed_files: [...changed],
    command,
    returncode: run.returncode,
    truncated: run.truncated,
    notes: [...runNotes, ...notes],
  };
}

registerFixer({
  name: "clippy",
  languages: ["rust"],
  // Its fixes can be narrowed to rules (applied by the server from clippy's suggestions).
  capabilities: { ...CLIPPY_CAPABILITIES, ruleScope: true },
  candidates: async (_ctx, req) =>
    req.options?.source ? [] : crateSources(requireCrateDir(req.target, "clippy")),
  fix,
});
