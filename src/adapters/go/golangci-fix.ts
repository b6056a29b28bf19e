/**
 * lint_fix / fix_all with golangci-lint (a Go module whose project configures it): `golangci-lint run --fix`
 * with the project's config, in a scratch copy of the module; the server writes the project from the copy
 * (inside the calling tool's transaction), so a dry run and a real run are the same computation and a dry
 * run's diff is exactly what the real run writes. What is left is a plain `golangci-lint run` of the fixed
 * copy.
 */
import { copyIntoScratch } from "../scratch-copy.js";
import fs from "node:fs";
import path from "node:path";
import { fileDiff } from "../../findings/diff-caps.js";
import { displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import { makeScratchDir } from "../../exec/sandbox/scratch.js";
import { refuseLinksLeaving } from "../../paths/outside-links.js";
import { rewriteSource } from "../../paths/source-files.js";
import type { Finding } from "../../findings/model.js";
import { displayRelative } from "../display.js";
import { golangciConfig } from "../project-configs.js";
import {
  registerFixer,
  type FileFixResult,
  type FixMessage,
  type FixOutcome,
  type FixRequest,
  type FixStatus,
} from "../fixers.js";
import { packageDir, packagePattern, requireGoModule } from "./go-env.js";
import { fullOutput, runGoTool } from "./go-run.js";
import {
  failure,
  failureReason,
  golangciArgs,
  golangciEnv,
  parseGolangciJson,
  refusePlugins,
} from "./golangci-lint.js";

const MAX_COPIED_FILES = 5000;
const MAX_COPIED_BYTES = 64 * 1024 * 1024;
/** Folders not copied: VCS and build folders (a `.golangci.yml` and other dotfiles are). */
const SKIPPED = new Set([".git", ".hg", ".svn", "node_modules", ".mcp-cache"]);

/** Every `.go` file of the module (what --fix may rewrite), outside skipped folders. */
function goFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) goFiles(p, out);
    else if (e.isFile() && e.name.endsWith(".go")) out.push(p);
  }
  return out;
}

function status(changed: boolean, left: FixMessage[], dryRun: boolean): FixStatus {
  if (dryRun) return changed ? "would-fix" : left.length ? "unfixable" : "clean";
  if (changed) return left.length ? "fixable" : "fixed";
  return left.length ? "unfixable" : "clean";
}

const message = (f: Finding): FixMessage => ({
  line: f.line,
  column: f.column,
  rule_id: f.rule_id,
  severity: f.severity === "error" ? "error" : "warning",
  message: f.message,
});

function diffOf(ctx: ToolContext, file: string, before: string, after: string): string {
  return fileDiff(displayRelative(ctx, file), before, after);
}

async function fix(ctx: ToolContext, req: FixRequest): Promise<FixOutcome> {
  if (req.options?.source)
    throw new ToolError("invalid_input", "golangci-lint fixes files of a Go module, not inline source_code");
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const mod = requireGoModule(req.target, root, "golangci-lint");
  const found = req.config ?? golangciConfig(mod, req.target, root);
  // A config above the module (a monorepo root's) is named to the copy's run; one inside it is copied.
  const outside = found && path.relative(mod, found).startsWith("..") ? found : undefined;
  if (req.files?.length)
    throw new ToolError("invalid_input", "golangci-lint fixes packages, not a file list: leave out files");
  // The target's packages (`./...`, `./sub/...`); a `.go` file: its package's.
  const pattern = req.target.endsWith(".go")
    ? packageDir(path.dirname(req.target), mod)
    : packagePattern(req.target, mod);
  const args = golangciArgs([pattern], outside);
  args.splice(1, 0, "--fix");
  const command = displayCommand("golangci-lint", args);
  refusePlugins(found, command);
  refuseLinksLeaving(mod, ctx.allowlist);
  const scratch = makeScratchDir("mcq-golangci-fix-", { project: mod });
  try {
    copyIntoScratch(mod, scratch, {
      skip: (name) => SKIPPED.has(name),
      budget: { files: MAX_COPIED_FILES, bytes: MAX_COPIED_BYTES },
      tooLarge: `the module is too large to copy into a scratch directory for golangci-lint --fix (over ${MAX_COPIED_FILES} files or ${MAX_COPIED_BYTES} bytes)`,
    });
    // A config named with `config` inside the module: the copy's own.
    if (req.config && !outside)
      args.splice(args.length - 1, 0, "--config", path.join(scratch, path.relative(mod, req.config)));
    const toCopy = (f: string) => path.join(scratch, path.relative(mod, f));
    const toReal = (f: string) => path.join(mod, path.relative(scratch, f));
    const files = goFiles(mod).map((real) => ({ real, before: fs.readFileSync(real, "utf8") }));
    const full = fullOutput();
    const run = await runGoTool(
      ctx,
      "golangci-lint",
      args,
      scratch,
      command,
      golangciEnv(found, mod),
      full.lines,
    );
    if (run.returncode !== 0 && run.returncode !== 1)
      throw failure(command, run, `failed: ${failureReason(full.stdout(), full.stderr())}`);
    // What is left: a plain run on the fixed copy (--fix's own report leaves out issues whose fix it
    // skipped, such as two linters' fixes of one line).
    const lintArgs = args.filter((a) => a !== "--fix");
    const after = fullOutput();
    const check = await runGoTool(
      ctx,
      "golangci-lint",
      lintArgs,
      scratch,
      displayCommand("golangci-lint", lintArgs),
      golangciEnv(found, mod),
      after.lines,
    );
    if (check.returncode !== 0 && check.returncode !== 1)
      throw failure(command, check, `failed: ${failureReason(after.stdout(), after.stderr())}`);
    const left = parseGolangciJson(after.stdout(), scratch).map((f) => ({ ...f, file: toReal(f.file) }));
    const changes = files
      .map((f) => ({ ...f, after: fs.readFileSync(toCopy(f.real), "utf8") }))
      .filter((f) => f.after !== f.before);
    if (!req.dryRun) for (const c of changes) rewriteSource(ctx.allowlist, c.real, c.before, c.after);
    const changed = new Set(changes.map((c) => c.real));
    const diffs = new Map(changes.map((c) => [c.real, diffOf(ctx, c.real, c.before, c.after)]));
    const results: FileFixResult[] = files.map(({ real }) => {
      const messages = left.filter((f) => f.file === real).map(message);
      const diff = req.dryRun ? diffs.get(real) : undefined;
      return {
        file: real,
        status: status(changed.has(real), messages, req.dryRun),
        errorCount: messages.filter((m) => m.severity === "error").length,
        warningCount: messages.filter((m) => m.severity === "warning").length,
        messages,
        ...(diff && { diff }),
      };
    });
    const notes = [
      `golangci-lint ${run.executable}`,
      found
        ? `config: ${path.relative(mod, found) || found}`
        : "no golangci-lint config file: its default linters",
      "golangci-lint --fix ran in a scratch copy of the module; the project is written from it",
      ...(req.safety === "unsafe"
        ? ["safety unsafe: golangci-lint has one kind of fix; the same fixes as safe were applied"]
        : []),
    ];
    return {
      files: results,
      filesInScope: files.length,
      changed_files: [...changed],
      ...(req.dryRun && { diff: [...diffs.values()].join("") }),
      command,
      returncode: run.returncode,
      truncated: run.truncated,
      notes,
    };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

registerFixer({
  name: "golangci-lint",
  languages: ["go"],
  capabilities: {
    inlineSource: false,
    ruleScope: false,
    contextual: false,
    explain: false,
    corrections: false,
  },
  candidates: (ctx, req) => {
    const root = ctx.allowlist.rootOf(req.target) ?? req.target;
    return Promise.resolve(goFiles(requireGoModule(req.target, root, "golangci-lint")));
  },
  fix,
});
