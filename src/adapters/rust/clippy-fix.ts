/**
 * lint_fix / fix_all with clippy. Every fix is computed in a scratch copy of the crate's workspace and the
 * project is written from it by the server (inside the calling tool's transaction), so a dry run and a real
 * run are the same computation and a dry run's diff is exactly what the real run writes:
 * - the whole crate: `cargo clippy --fix` itself (rustfix, up to 4 passes); `safety: "unsafe"` adds
 *   `__CARGO_FIX_YOLO=1`, which applies the suggestions clippy does not mark machine-applicable too;
 * - only/except or `changed`: cargo cannot be told which lints to fix, so the server applies those lints'
 *   suggestions the way cargo does: passes of clippy's suggestions, the last diagnostic of a file first and
 *   one overlapping an applied one left for the next pass, until nothing applies (at most 4 passes), and a
 *   pass that breaks the build backed out.
 * What is left is linted again in the fixed copy, at its own level (cargo fix caps lints at warn).
 */
import fs from "node:fs";
import path from "node:path";
import { fileDiff } from "../../findings/diff-caps.js";
import { displayCommand, runFailed } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { readSourceText, rewriteSource } from "../../paths/safe-fs.js";
import type { RuleScope } from "../lint-options.js";
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
import { requireCrateDir } from "./cargo-env.js";
import {
  cargoFailed,
  isCompileError,
  parseCargoMessages,
  shortFormat,
  type CargoMessages,
  type CorrectionEdit,
  type RustFinding,
} from "./cargo-messages.js";
import { runCargo } from "./cargo-run.js";
import { clippyArgs } from "./clippy.js";
import { ALL_BUT_BENCHES, ALL_TARGETS } from "./cargo-targets.js";
import { scratchCrate, scratchWorkspace } from "./clippy-inline.js";

/** cargo fix's own limit of fix passes (CARGO_FIX_MAX_RETRIES' default). */
export const MAX_FIX_PASSES = 4;

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
  const eol = text.indexOf("\n", offset);
  return offset + [...text.slice(offset, eol === -1 ? undefined : eol)].slice(0, column - 1).join("").length;
}

/**
 * One pass of rustfix over a file: the diagnostics' suggestions from the last to the first, all edits of a
 * suggestion or none, and one that overlaps a suggestion already applied left out (the next pass, linting
 * the changed text, gets it again).
 */
export function applyCorrections(
  text: string,
  corrections: CorrectionEdit[][],
): { text: string; applied: number } {
  const taken: { start: number; end: number; text: string }[] = [];
  let applied = 0;
  for (const edits of [...corrections].reverse()) {
    const spans = edits.map((e) => ({
      start: offsetOf(text, e.line, e.column),
      end: offsetOf(text, e.end_line, e.end_column),
      text: e.text,
    }));
    if (spans.some((s) => taken.some((t) => s.start < t.end && t.start < s.end))) continue;
    taken.push(...spans);
    applied++;
  }
  taken.sort((a, b) => b.start - a.start);
  let out = text;
  for (const t of taken) out = out.slice(0, t.start) + t.text + out.slice(t.end);
  return { text: out, applied };
}

/** A problem left, as an inspected offense has it: where it is and the correction clippy still offers. */
function message(f: RustFinding, unsafe: boolean): FixMessage {
  return {
    line: f.line,
    column: f.column,
    end_line: f.end_line,
    end_column: f.end_column,
    rule_id: f.rule_id || null,
    severity: f.severity === "error" ? "error" : "warning",
    message: f.message,
    fixable: f.correction !== undefined && (f.correction.safe || unsafe),
    ...(f.correction && { correction: f.correction }),
    ...(f.docs_url && { docs_url: f.docs_url }),
  };
}

function status(changed: boolean, left: FixMessage[], dryRun: boolean): FixStatus {
  if (dryRun) return changed ? "would-fix" : left.length ? "unfixable" : "clean";
  if (changed) return left.length ? "fixable" : "fixed";
  return left.length ? (left.some((m) => m.fixable) ? "fixable" : "unfixable") : "clean";
}

function compileFailure(
  ctx: ToolContext,
  command: string,
  run: { stdout: string; stderr: string; returncode: number | null; truncated: boolean },
  findings: RustFinding[],
  why = "the crate does not compile, so clippy could not fix it",
) {
  const first = findings.find(isCompileError);
  return runFailed(
    first
      ? `${why}: ${shortFormat(first, displayRelative(ctx, first.file))}`
      : `cargo clippy --fix failed (exit ${run.returncode}); see output`,
    command,
    run,
  );
}

/** A copy to fix in: the files of the request (real path → copy) and where cargo runs. */
interface Scratch {
  crate: string;
  workspace: string;
  /** clippy's environment, the real crate's (clippy-conf.ts). */
  env: { CLIPPY_CONF_DIR: string };
  /** The targets cargo builds: a crate's all but nightly-only benches (lint builds every one), inline code's its own. */
  targets: readonly string[];
  /** Each file the fix may change: its real path, its copy, its text when copied. */
  files: { real: string; copy: string; before: string }[];
  toReal(file: string): string | undefined;
  remove(): void;
}

function scratchOf(ctx: ToolContext, req: FixRequest): Scratch {
  const inline = req.options?.source;
  if (inline) {
    const s = scratchCrate(ctx, inline);
    return {
      crate: s.crate,
      workspace: s.workspace,
      env: s.env,
      targets: s.allTargets ? ALL_TARGETS : [],
      files: [{ real: inline.path, copy: s.file, before: inline.code }],
      toReal: (f) => (f === s.file ? inline.path : undefined),
      remove: s.remove,
    };
  }
  const crate = requireCrateDir(req.target, "clippy");
  // `changed` and `files` (resolved by the tool layer): only those files' suggestions are applied.
  const only = req.options?.changedFiles ?? req.options?.files;
  const changedOnly = only && new Set(only);
  const sources = crateSources(crate).filter((f) => !changedOnly || changedOnly.has(f));
  const copy = scratchWorkspace(ctx, crate);
  try {
    const files = sources.map((real) => ({
      real,
      copy: copy.toScratch(real),
      before: readSourceText(ctx.allowlist, real),
    }));
    const known = new Set(sources);
    return {
      crate: copy.crate,
      workspace: copy.workspace,
      env: copy.env,
      // Tests, examples and #[cfg(test)] modules too, as lint reports them (cargo-targets.ts); not benches,
      // which may need nightly and would fail the whole fix.
      targets: ALL_BUT_BENCHES,
      files,
      toReal: (f) => {
        const real = copy.toReal(f);
        return known.has(real) ? real : undefined;
      },
      remove: copy.remove,
    };
  } catch (err) {
    copy.remove();
    throw err;
  }
}

/** cargo in the copy, every stdout line read (run.stdout stays capped). */
async function cargoIn(ctx: ToolContext, s: Scratch, args: string[], env: Record<string, string>) {
  const lines: string[] = [];
  const ran = await runCargo(ctx, s.crate, args, displayCommand("cargo", args), env, (l) => lines.push(l));
  const messages: CargoMessages = parseCargoMessages(lines.join("\n"), s.workspace, "clippy");
  return { ...ran, messages, command: displayCommand("cargo", ran.args) };
}

interface ScratchFix {
  command: string;
  notes: string[];
  /** The last lint of the fixed copy: what is left, at each lint's own level. */
  left: RustFinding[];
  returncode: number | null;
  truncated: boolean;
}

/** The server's passes of the suggestions in scope (only/except, changed files), in the copy. */
async function serverPasses(
  ctx: ToolContext,
  s: Scratch,
  applies: (f: RustFinding) => boolean,
  env: Record<string, string>,
  lintArgs: string[],
): Promise<ScratchFix> {
  const notes: string[] = [];
  let last: Awaited<ReturnType<typeof cargoIn>> | undefined;
  let previous: Map<string, string> | undefined;
  for (let pass = 0; pass <= MAX_FIX_PASSES; pass++) {
    const lint = await cargoIn(ctx, s, lintArgs, env);
    notes.push(...lint.notes);
    if (pass === 0 && cargoFailed(lint.messages, lint.run.returncode))
      throw compileFailure(ctx, lint.command, lint.run, lint.messages.findings);
    if (pass > 0 && lint.messages.findings.some(isCompileError) && previous) {
      // As cargo fix does, a pass whose result does not build is backed out.
      for (const [file, text] of previous) fs.writeFileSync(file, text);
      notes.push(`pass ${pass} of suggestions broke the build and was backed out`);
      return finalLint();
    }
    last = lint;
    if (pass === MAX_FIX_PASSES) break;
    previous = new Map();
    let applied = 0;
    for (const f of s.files) {
      const corrections = lint.messages.findings
        .filter((d) => d.file === f.copy && applies(d))
        .map((d) => d.correction?.edits ?? []);
      if (!corrections.length) continue;
      const text = fs.readFileSync(f.copy, "utf8");
      const next = applyCorrections(text, corrections);
      if (next.applied === 0 || next.text === text) continue;
      previous.set(f.copy, text);
      fs.writeFileSync(f.copy, next.text);
      applied += next.applied;
    }
    if (applied === 0) break;
    last = undefined;
  }
  if (!last) return finalLint();
  return {
    command: last.command,
    notes,
    left: last.messages.findings,
    returncode: last.run.returncode,
    truncated: last.run.truncated,
  };

  async function finalLint(): Promise<ScratchFix> {
    const lint = await cargoIn(ctx, s, lintArgs, env);
    return {
      command: lint.command,
      notes: [...notes, ...lint.notes],
      left: lint.messages.findings,
      returncode: lint.run.returncode,
      truncated: lint.run.truncated,
    };
  }
}

/** Fixes the copy: cargo clippy --fix for the whole crate, the server's passes for a scoped fix. */
async function fixInScratch(
  ctx: ToolContext,
  s: Scratch,
  opts: { unsafe: boolean; rules?: RuleScope; scoped: boolean },
): Promise<ScratchFix> {
  const env = s.env;
  const lintArgs = [...clippyArgs(), ...s.targets];
  if (opts.scoped) {
    const copies = new Set(s.files.map((f) => f.copy));
    const applies = (f: RustFinding) =>
      f.correction !== undefined &&
      (f.correction.safe || opts.unsafe) &&
      copies.has(f.file) &&
      inRuleScope(f.rule_id, opts.rules);
    const passes = await serverPasses(ctx, s, applies, env, lintArgs);
    return {
      ...passes,
      command: `${passes.command} (suggestions in scope applied by the server, as cargo clippy --fix applies them)`,
    };
  }
  const fixArgs = [...clippyFixArgs(), ...s.targets];
  const yolo: Record<string, string> = opts.unsafe ? { __CARGO_FIX_YOLO: "1" } : {};
  const fixed = await cargoIn(ctx, s, fixArgs, { ...env, ...yolo });
  if (cargoFailed(fixed.messages, fixed.run.returncode))
    throw compileFailure(ctx, fixed.command, fixed.run, fixed.messages.findings);
  const lint = await cargoIn(ctx, s, lintArgs, env);
  if (lint.messages.findings.some(isCompileError))
    throw compileFailure(
      ctx,
      fixed.command,
      lint.run,
      lint.messages.findings,
      "cargo clippy --fix left code that does not compile",
    );
  return {
    command: `${opts.unsafe ? "__CARGO_FIX_YOLO=1 " : ""}${fixed.command}`,
    notes: [...fixed.notes, ...lint.notes],
    left: lint.messages.findings,
    returncode: lint.run.returncode,
    truncated: fixed.run.truncated || lint.run.truncated,
  };
}

function diffOf(ctx: ToolContext, file: string, before: string, after: string): string {
  return fileDiff(displayRelative(ctx, file), before, after);
}

async function fix(ctx: ToolContext, req: FixRequest): Promise<FixOutcome> {
  const inline = req.options?.source;
  const unsafe = req.safety === "unsafe";
  const rules = req.options?.rules;
  const scoped = Boolean(rules || req.options?.changedFiles || req.options?.files);
  const s = scratchOf(ctx, req);
  try {
    const done = await fixInScratch(ctx, s, { unsafe, rules, scoped });
    const changes = s.files
      .map((f) => ({ ...f, after: fs.readFileSync(f.copy, "utf8") }))
      .filter((f) => f.after !== f.before);
    if (!req.dryRun && !inline)
      for (const c of changes) rewriteSource(ctx.allowlist, c.real, c.before, c.after);
    const left = done.left.flatMap((f) => {
      const real = s.toReal(f.file);
      return real ? [{ ...f, file: real }] : [];
    });
    const changed = new Set(changes.map((c) => c.real));
    const diffs = new Map(changes.map((c) => [c.real, diffOf(ctx, c.real, c.before, c.after)]));
    const files: FileFixResult[] = s.files.map(({ real }) => {
      const messages = left.filter((f) => f.file === real).map((f) => message(f, unsafe));
      const diff = req.dryRun && !inline ? diffs.get(real) : undefined;
      return {
        file: real,
        status: status(changed.has(real), messages, req.dryRun || Boolean(inline)),
        errorCount: messages.filter((m) => m.severity === "error").length,
        warningCount: messages.filter((m) => m.severity === "warning").length,
        messages,
        ...(diff && { diff }),
      };
    });
    const notes = [...new Set(done.notes)];
    if (inline)
      notes.push("corrected in a scratch copy of the crate's workspace (the project is not written)");
    notes.push(
      unsafe
        ? "safety unsafe: clippy's suggestions that are not machine-applicable (MaybeIncorrect...) were applied too, as __CARGO_FIX_YOLO=1 cargo clippy --fix applies them"
        : "safety safe: only clippy's machine-applicable suggestions were applied",
    );
    return {
      files,
      filesInScope: s.files.length,
      changed_files: inline ? [] : [...changed],
      ...(req.dryRun && !inline && { diff: [...diffs.values()].join("") }),
      ...(inline && { correctedSource: changes[0]?.after ?? inline.code }),
      command: done.command,
      returncode: done.returncode,
      truncated: done.truncated,
      notes,
    };
  } finally {
    s.remove();
  }
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
