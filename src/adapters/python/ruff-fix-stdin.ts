/** ruff's fix of inline code (stdin, `--stdin-filename`): the corrected text and what is left, nothing written. */
import {
  changesDiff,
  fileResult,
  fileStatus,
  leftMessage,
  perFileFixReport,
  ruffScope,
  type SourceChange,
} from "./ruff-fix-results.js";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { type FileFixResult, type FixMessage, type FixOutcome, type FixRequest } from "../fixers.js";
import { parseToolWarnings } from "./tool-warnings.js";
import { checkRuffCliScope, ruffCliScope } from "./ruff-cli-scope.js";
import { readSourceText, rewriteSource } from "../../paths/safe-fs.js";
import type { Finding } from "../../findings/model.js";
import { ruffConfigArgs } from "./config-discovery.js";
import { ruffCheckArgs, parseRuffJsonLine } from "./ruff-cli.js";
import { RUFF_CONTEXTUAL_RULES, ruffStdinArgs, runRuffStdin } from "./ruff-stdin.js";
import { inRuleScope } from "../rule-scope.js";

/**
 * Seed 003's fix (inline code, rule scope, contextual corrections, per-file dry-run diffs): each file with
 * a correction is fixed on stdin and written by the server (race-safe, only when it changed), so a dry run
 * computes exactly what a real fix writes, and what is left is located in the fixed text.
 */
export async function stdinFix(
  ctx: ToolContext,
  req: FixRequest,
  executable: string,
  note?: string,
): Promise<FixOutcome> {
  const options = req.options ?? {};
  const unsafe = req.safety === "unsafe";
  const rules = options.rules;
  // contextual: false holds back the removals of names that may be about to be used.
  const held = options.contextual === false ? RUFF_CONTEXTUAL_RULES : [];
  const heldBack = (rule: string) => held.some((h) => rule === h);
  const fixOpts = (configArgs: string[]) => ({
    mode: "fix" as const,
    configArgs,
    unsafe,
    fixable: rules?.only,
    unfixable: [...(rules?.except ?? []), ...held],
  });
  const notes = note ? [note] : [];
  if (held.length) notes.push(`contextual corrections held back: ${held.join(", ")}`);
  const source = options.source;
  if (source) {
    const root = ctx.allowlist.rootOf(source.path) ?? path.dirname(source.path);
    const configArgs = ruffConfigArgs(source.path, root, req.config);
    const fixed = await runRuffStdin(ctx, executable, source.path, source.code, fixOpts(configArgs));
    if (fixed.loop)
      throw new ToolError("tool_error", `ruff could not settle the fixes of the inline code: ${fixed.loop}`);
    const left = await runRuffStdin(ctx, executable, source.path, fixed.text, { mode: "report", configArgs });
    const messages = left.findings.map((f) => leftMessage(f, heldBack, unsafe));
    const changed = fixed.text !== source.code;
    return {
      files: [fileResult(source.path, fileStatus(changed, messages, req.dryRun), messages)],
      changed_files: [],
      correctedSource: fixed.text,
      command: fixed.command,
      returncode: messages.length ? 1 : 0,
      notes: [...notes, ...parseToolWarnings(fixed.stderr, "ruff")],
    };
  }
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const scope = ruffScope(ctx, req);
  if (!req.files?.length) checkRuffCliScope(req.target, root, req.config);
  const cliScope = ruffCliScope(req.target, root, req.config);
  // One report run finds the files with something to correct; only those are fixed one by one.
  const reportArgs = ruffCheckArgs(req.files?.length ? scope : [req.target], cliScope);
  const found = new Map<string, Finding[]>();
  const report = await ctx.run({
    program: executable,
    args: reportArgs,
    onStdoutLine: (line) => {
      const f = parseRuffJsonLine(line, ctx.config.cwd);
      if (f) found.set(f.file, [...(found.get(f.file) ?? []), f]);
    },
  });
  if (report.returncode !== 0 && report.returncode !== 1)
    throw new ToolError("tool_error", `ruff check failed (exit ${report.returncode}); see output`, {
      command: displayCommand("ruff", reportArgs),
      returncode: report.returncode,
      output: combinedOutput(report.stdout, report.stderr),
    });
  notes.push(...parseToolWarnings(report.stderr, "ruff"));
  const files: FileFixResult[] = [];
  const changes: SourceChange[] = [];
  for (const file of [...new Set([...scope, ...found.keys()])].sort()) {
    const diagnostics = found.get(file) ?? [];
    const toFix = diagnostics.some(
      (f) =>
        f.correction &&
        (unsafe || f.correction.safe) &&
        !heldBack(f.rule_id) &&
        inRuleScope(f.rule_id, rules),
    );
    if (!toFix) {
      const messages = diagnostics.map((f) => leftMessage(f, heldBack, unsafe));
      files.push(fileResult(file, fileStatus(false, messages, req.dryRun), messages));
      continue;
    }
    const before = readSourceText(ctx.allowlist, file);
    const errors: string[] = [];
    let after = before;
    let messages: FixMessage[];
    try {
      const fixed = await runRuffStdin(ctx, executable, file, before, fixOpts(cliScope.configArgs));
      // Fixes that go back and forth leave the file as it was, the loop said in its errors.
      if (fixed.loop) errors.push(`fix loop: ${fixed.loop}`);
      else after = fixed.text;
      const left =
        after === before
          ? diagnostics
          : (
              await runRuffStdin(ctx, executable, file, after, {
                mode: "report",
                configArgs: cliScope.configArgs,
              })
            ).findings;
      messages = left.map((f) => leftMessage(f, heldBack, unsafe));
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      errors.push(err.message);
      messages = diagnostics.map((f) => leftMessage(f, heldBack, unsafe));
    }
    const changed = after !== before;
    const result = fileResult(
      file,
      errors.length ? "error" : fileStatus(changed, messages, req.dryRun),
      messages,
    );
    if (errors.length) result.errors = errors;
    if (changed) {
      changes.push({ file, before, after });
      if (req.dryRun) result.diff = changesDiff(ctx, [{ file, before, after }]);
      // Only a file with something corrected is written; the others keep their bytes and mtime.
      else rewriteSource(ctx.allowlist, file, before, after);
    }
    files.push(result);
  }
  const command = displayCommand("ruff", ruffStdinArgs("FILE", fixOpts(cliScope.configArgs)));
  return {
    ...perFileFixReport(ctx, files, changes, req.dryRun),
    command: `${command} (per file with corrections)`,
    notes,
  };
}

/** Whether a request asks for seed 003's fix (the per-file stdin path) rather than ruff's own `--fix`. */
export function wantsStdinFix(req: FixRequest): boolean {
  const o = req.options;
  return Boolean(o && (o.source || o.rules || o.contextual !== undefined || o.maxPerRule !== undefined));
}
