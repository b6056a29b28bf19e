/** ESLint for `lint` and `lint_fix`, run in the warm ESLint worker of the project. */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { readSourceText, rewriteSource } from "../../paths/safe-fs.js";
import type { InlineSource } from "../lint-options.js";
import { displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { registerFixer, type FixOutcome, type FixRequest } from "../fixers.js";
import { registerLinter, type LintOutcome, type LintRequest } from "../linters.js";
import {
  eslintFindings,
  fileView,
  fixStatus,
  foreignDirectivesNote,
  lintStatus,
  selectFiles,
  withoutForeignDirectives,
  type FileView,
} from "./eslint-results.js";
import { eslintScope, type DefaultScope, type EslintScope } from "./eslint-scope.js";
import type {
  EslintFixParams,
  EslintRequestParams,
  WireConfigInputs,
  WireFileReport,
} from "./eslint-wire.js";
import { loadableEntry, toolNote, type ToolModule } from "./project.js";
import { unifiedDiff, type Rewrite } from "./unified-diff.js";
import { diffBudget } from "../../findings/diff-caps.js";
import { warmRequest } from "./warm.js";
import { cachedEslintReports } from "./eslint-cached.js";
import { resultCacheOf } from "../../cache/service.js";
import { runXo, xoCommand } from "./xo.js";
import { packageConfigDirs, splitPatterns } from "./eslint-packages.js";

type Format = "compact" | "full";

function formatOf(args: Record<string, unknown>): Format {
  return args.format === "full" ? "full" : "compact";
}

function filesOf(args: Record<string, unknown>): string[] | undefined {
  return Array.isArray(args.files) ? (args.files as string[]) : undefined;
}

/** The eslint-typescript drop-in asks for seed 001's default scope (`src/`) with `default_scope: "seed"`. */
function defaultScopeOf(args: Record<string, unknown>): DefaultScope {
  return args.default_scope === "seed" ? "seed" : "project";
}

export function params(scope: EslintScope): EslintRequestParams {
  return {
    entry: loadableEntry(scope.eslint),
    cwd: scope.root,
    configFile: scope.configFile,
    patterns: scope.patterns,
    ...(scope.ignore?.length && { ignore: scope.ignore }),
  };
}

/**
 * A workspace root without an eslint.config.* whose packages have theirs (eslint-packages.ts): one scope per
 * package, as ESLint by hand in it, and the bundled config's over the rest (none when nothing is left);
 * undefined when the call is not split.
 */
export function packageScopes(
  ctx: ToolContext,
  scope: EslintScope,
  config: string | undefined,
): { parts: EslintScope[]; bundled: EslintScope | undefined } | undefined {
  if (scope.configFile || scope.xo || config) return undefined;
  const dirs = packageConfigDirs(scope.base);
  if (!dirs.length) return undefined;
  const absolute = scope.patterns.map((p) => path.resolve(scope.root, p));
  const split = splitPatterns(
    absolute,
    dirs,
    (p) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false,
  );
  if (!split.packages.length) return undefined;
  const parts = split.packages.map((p) => eslintScope(ctx, p.dir, p.files, undefined));
  const rel = (a: string) => path.relative(scope.root, a).split(path.sep).join("/") || ".";
  const bundled: EslintScope | undefined = split.bundled.length
    ? {
        ...scope,
        patterns: split.bundled.map(rel),
        ignore: split.packages.map((p) => `${rel(p.dir)}/`),
        notes: [
          ...scope.notes.filter((n) => !n.startsWith("no eslint.config.*")),
          `no eslint.config.* for the files outside ${split.packages.map((p) => rel(p.dir)).join(", ")}: used ` +
            "the bundled default config (@eslint/js recommended + typescript-eslint recommended) for them",
        ],
      }
    : undefined;
  return { parts, bundled };
}

/** The command of a split run, as it would be typed: ESLint in each package, then at the root. */
function splitCommand(
  root: string,
  parts: EslintScope[],
  bundled: EslintScope | undefined,
  fix?: string,
): string {
  const flag = fix ? [fix] : [];
  return [
    ...parts.map(
      (p) =>
        `(cd ${path.relative(root, p.root) || "."} && ${displayCommand("eslint", [...flag, "--", ...p.shown])})`,
    ),
    ...(bundled
      ? [
          displayCommand("eslint", [
            ...flag,
            ...(bundled.ignore ?? []).flatMap((i) => ["--ignore-pattern", i]),
            "--",
            ...bundled.patterns,
          ]),
        ]
      : []),
  ].join("; ");
}

/** Runs `run` for each part of a split call, concatenating reports; the bundled run's "nothing left" is none. */
async function eachPart<T extends { reports: WireFileReport[]; notes: string[] }>(
  split: { parts: EslintScope[]; bundled: EslintScope | undefined },
  run: (s: EslintScope) => Promise<T>,
): Promise<{ reports: WireFileReport[]; notes: string[] }> {
  const reports: WireFileReport[] = [];
  const notes: string[] = [];
  for (const part of [...split.parts, ...(split.bundled ? [split.bundled] : [])]) {
    let out: T;
    try {
      out = await run(part);
    } catch (err) {
      // The packages' folders may be all there is under the root's patterns (ESLint: "all files ... ignored").
      if (part === split.bundled && err instanceof ToolError && err.errorType === "invalid_input") continue;
      throw err;
    }
    reports.push(...out.reports);
    notes.push(...out.notes);
  }
  return { reports, notes };
}

export function eslintCall<T>(
  ctx: ToolContext,
  scope: EslintScope,
  method: string,
  p: unknown,
  command: string,
) {
  return warmRequest<T>(
    ctx,
    { tool: "eslint", root: scope.root, watch: scope.watch },
    method,
    p,
    command,
    `ESLint failed (config: ${scope.configFile ?? "bundled default"})`,
  );
}

/** What the config of `scope` reads, once loaded for `files` (see the worker's configInputs). */
export async function eslintConfigInputs(
  ctx: ToolContext,
  scope: EslintScope,
  files: string[],
  command: string,
): Promise<WireConfigInputs> {
  const { result } = await eslintCall<WireConfigInputs>(
    ctx,
    scope,
    "configInputs",
    { ...params(scope), files },
    command,
  );
  return result;
}

/** What ESLint does of seed 003's options: inline code, contextual suggestions, corrections, rule meta. */
export const ESLINT_CAPABILITIES = {
  inlineSource: true,
  ruleScope: false,
  contextual: true,
  explain: true,
  corrections: true,
} as const;

/** Suggestions held back while code is being edited (contextual: false): the name may be about to be used. */
export const ESLINT_CONTEXTUAL_RULES = ["no-unused-vars", "@typescript-eslint/no-unused-vars"];

/** The scope of inline code named `file` (its folder's config and ESLint; no files are listed). */
export function inlineScope(ctx: ToolContext, file: string, config: string | undefined): EslintScope {
  return eslintScope(ctx, path.dirname(file), [], config, "seed");
}

/** Inline code linted or fixed in the worker, as if it were `source.path`. */
async function eslintText(
  ctx: ToolContext,
  source: InlineSource,
  config: string | undefined,
  fix?: FixRequest,
) {
  const scope = inlineScope(ctx, source.path, config);
  if (scope.xo)
    throw new ToolError(
      "invalid_input",
      `${scope.root} lints with xo, which lints files, not inline code: save the code to its file and lint that`,
    );
  const command = displayCommand("eslint", [
    ...(fix ? ["--fix"] : []),
    "--stdin",
    "--stdin-filename",
    source.path,
  ]);
  const p = {
    ...params(scope),
    file: source.path,
    code: source.code,
    fix: Boolean(fix),
    unsafe: fix?.safety === "unsafe",
    holdBack: fix?.options?.contextual === false ? ESLINT_CONTEXTUAL_RULES : [],
    ...(fix?.options?.rules && { fixRules: fix.options.rules }),
  };
  const { result, note } = await eslintCall<WireFileReport[]>(ctx, scope, "lintText", p, command);
  const fatal = result.find((r) => r.fatal);
  if (fix && fatal)
    throw new ToolError(
      "tool_error",
      `ESLint could not fix the inline code: ${fatal.messages[0]?.message ?? "fatal error"}`,
    );
  return { scope, command, reports: result, note };
}

async function eslintLint(ctx: ToolContext, req: LintRequest): Promise<LintOutcome> {
  const started = performance.now();
  if (req.options?.source) {
    const { scope, command, reports, note } = await eslintText(ctx, req.options.source, req.config);
    // Inline code is reported as the one file it is linted as.
    return lintOutcome(scope, command, reports, [...scope.notes.filter((n) => !n.startsWith("lint")), note], {
      format: "full",
      scope: "filtered",
      started,
    });
  }
  const files = filesOf(req.args);
  const scope = eslintScope(ctx, req.target, files, req.config, defaultScopeOf(req.args));
  const split = packageScopes(ctx, scope, req.config);
  if (split) {
    const lintCommand = splitCommand(scope.root, split.parts, split.bundled);
    const all = await eachPart(split, async (s) => {
      const p = { ...params(s), corrections: true };
      const { result, note } = await eslintCall<WireFileReport[]>(ctx, s, "lint", p, lintCommand);
      const own = ownReports(s, result);
      return {
        reports: own.reports,
        notes: [toolNote(s.eslint), ...s.notes, note, ...(own.note ? [own.note] : [])],
      };
    });
    return lintOutcome(scope, lintCommand, all.reports, all.notes, {
      format: formatOf(req.args),
      scope: scope.scope,
      started,
      own: true,
    });
  }
  if (scope.xo) {
    const xoReports = await runXo(ctx, scope.xo, scope.root, scope.patterns, false);
    return lintOutcome(scope, xoCommand(scope.patterns, false), xoReports, scope.notes, {
      format: formatOf(req.args),
      scope: scope.scope,
      started,
    });
  }
  const command = displayCommand("eslint", ["--", ...scope.shown]);
  const cache = resultCacheOf(ctx);
  if (cache) {
    const cached = await cachedEslintReports(
      ctx,
      cache,
      scope,
      req.target,
      // Offenses say what a fix would do (ESLint's fixes as safe, its suggestions as unsafe).
      (s) => eslintCall<WireFileReport[]>(ctx, s, "lint", { ...params(s), corrections: true }, command),
      async (s, sample) =>
        (await eslintCall<boolean>(ctx, s, "typeAware", { ...params(s), files: sample }, command)).result,
      (s, sample) => eslintConfigInputs(ctx, s, sample, command),
    );
    if (cached)
      return {
        ...lintOutcome(
          scope,
          command,
          cached.reports,
          [...scope.notes, ...(cached.note ? [cached.note] : [])],
          {
            format: formatOf(req.args),
            scope: scope.scope,
            started,
          },
        ),
        cache: cached.cache,
      };
  }
  const { result: reports, note } = await eslintCall<WireFileReport[]>(
    ctx,
    scope,
    "lint",
    // Offenses say what a fix would do (ESLint's fixes as safe, its suggestions as unsafe).
    { ...params(scope), corrections: true },
    command,
  );
  return lintOutcome(scope, command, reports, [...scope.notes, note], {
    format: formatOf(req.args),
    scope: scope.scope,
    started,
  });
}

/**
 * The reports of the bundled default config without ESLint's problems about the project's disable comments
 * (see withoutForeignDirectives), and the note saying so; a project's own config's reports as they are.
 */
function ownReports(
  scope: EslintScope,
  all: WireFileReport[],
): { reports: WireFileReport[]; note: string | undefined } {
  if (scope.configFile || scope.xo) return { reports: all, note: undefined };
  const { reports, left } = withoutForeignDirectives(all);
  return { reports, note: foreignDirectivesNote(left) };
}

/** lint's outcome of ESLint's reports: its findings and the per-file statuses the files[] view is built from. */
function lintOutcome(
  scope: EslintScope,
  command: string,
  all: WireFileReport[],
  given: string[],
  /** own: the reports are each config's own already (a split run: the notes say which ESLint ran). */
  view: { format: Format; scope: "full" | "filtered"; started: number; own?: boolean },
): LintOutcome {
  const { reports, note } = view.own ? { reports: all, note: undefined } : ownReports(scope, all);
  const notes = note ? [...given, note] : given;
  const tool = scope.xo ?? scope.eslint;
  return {
    findings: eslintFindings(reports),
    tool: tool.name,
    version: () => Promise.resolve(tool.version),
    command,
    returncode: reports.some((r) => r.errorCount > 0) ? 1 : 0,
    notes: view.own ? notes : [toolNote(tool), ...notes],
    perFile: {
      statuses: reports.map((r) => ({ file: r.file, status: lintStatus(r), errors: r.errors })),
      format: view.format,
      scope: view.scope,
      durationMs: Math.round(performance.now() - view.started),
    },
  };
}

/** The fix as the worker computes it (nothing written yet). */
async function computeFix(ctx: ToolContext, req: FixRequest) {
  const scope = eslintScope(ctx, req.target, req.files, req.config, defaultScopeOf(req.args ?? {}));
  if (scope.xo) return computeXoFix(ctx, req, scope, scope.xo);
  const split = packageScopes(ctx, scope, req.config);
  if (!split) return fixScope(ctx, req, scope);
  const all = await eachPart(split, async (s) => {
    const r = await fixScope(ctx, req, s);
    return {
      reports: r.reports,
      notes: [toolNote(s.eslint), ...s.notes, r.note, ...(r.leftOut ? [r.leftOut] : [])],
    };
  });
  return {
    scope: { ...scope, notes: all.notes },
    command: splitCommand(scope.root, split.parts, split.bundled, req.dryRun ? "--fix-dry-run" : "--fix"),
    reports: all.reports,
    note: undefined,
    leftOut: undefined,
    split: true,
  };
}

/** The fix of one scope (one config). */
async function fixScope(ctx: ToolContext, req: FixRequest, scope: EslintScope) {
  const command =
    displayCommand("eslint", [req.dryRun ? "--fix-dry-run" : "--fix", "--", ...scope.shown]) +
    (req.safety === "unsafe" ? " (then suggestions)" : "");
  const p: EslintFixParams = {
    ...params(scope),
    unsafe: req.safety === "unsafe",
    holdBack: req.options?.contextual === false ? ESLINT_CONTEXTUAL_RULES : [],
    ...(req.options?.rules && { fixRules: req.options.rules }),
  };
  const { result, note } = await eslintCall<WireFileReport[]>(ctx, scope, "fix", p, command);
  const own = ownReports(scope, result);
  return { scope, command, reports: own.reports, note, leftOut: own.note, split: false };
}

/** The fix of an xo project: what `xo --fix` writes (xo applies fixes, never suggestions). */
async function computeXoFix(ctx: ToolContext, req: FixRequest, scope: EslintScope, xo: ToolModule) {
  if (req.options?.rules)
    throw new ToolError(
      "invalid_input",
      "only/except: xo's --fix applies all of its fixes; it takes no rule list",
    );
  const reports = await runXo(ctx, xo, scope.root, scope.patterns, true);
  const note =
    req.safety === "unsafe"
      ? "safety unsafe: xo --fix applies fixes only, never suggestions (as xo by hand)"
      : "safety safe: xo's fixes were applied, no suggestions";
  return { scope, command: xoCommand(scope.patterns, true), reports, note, leftOut: undefined, split: false };
}

function safetyNote(req: FixRequest): string {
  return req.safety === "unsafe"
    ? "safety unsafe: fixes and the first suggestion of each problem were applied"
    : "safety safe: only ESLint's fixes were applied, no suggestions";
}

async function eslintFix(ctx: ToolContext, req: FixRequest): Promise<FixOutcome> {
  if (req.options?.source) {
    const { scope, command, reports: all, note } = await eslintText(ctx, req.options.source, req.config, req);
    const { reports, note: leftOut } = ownReports(scope, all);
    const report = reports[0];
    return {
      files: reports.map((r) =>
        fileView(
          r,
          fixStatus({ ...r, output: r.output !== req.options!.source!.code ? r.output : undefined }, true),
        ),
      ),
      changed_files: [],
      correctedSource: report?.output ?? req.options.source.code,
      command,
      notes: [toolNote(scope.eslint), note, ...(leftOut ? [leftOut] : [])],
    };
  }
  const { scope, command, reports, note, leftOut, split } = await computeFix(ctx, req);
  const changes: Rewrite[] = [];
  for (const r of reports) {
    if (r.output === undefined) continue;
    const file = ctx.allowlist.resolve(r.file, { kind: "file", label: "fixed file" });
    changes.push({ file, before: readSourceText(ctx.allowlist, file), after: r.output });
  }
  if (!req.dryRun) for (const c of changes) rewriteSource(ctx.allowlist, c.file, c.before, c.after);
  const budget = diffBudget(ctx.config.maxResultBytes);
  const views: FileView[] = reports.map((r) => {
    const view = fileView(r, fixStatus(r, req.dryRun));
    const change = req.dryRun ? changes.find((c) => c.file === r.file) : undefined;
    // A dry run: each file that would change carries its own diff (its messages are those left after).
    return change ? { ...view, diff: unifiedDiff([change], ctx.config.cwd, budget) } : view;
  });
  return {
    files: selectFiles(views, formatOf(req.args)),
    filesInScope: views.length,
    scope: scope.scope,
    changed_files: changes.map((c) => c.file),
    diff:
      req.dryRun && changes.length
        ? unifiedDiff(changes, ctx.config.cwd, diffBudget(ctx.config.maxResultBytes))
        : undefined,
    command,
    notes: (split
      ? [...scope.notes, safetyNote(req)]
      : scope.xo
        ? [toolNote(scope.xo), ...scope.notes, note]
        : [toolNote(scope.eslint), ...scope.notes, safetyNote(req), note, ...(leftOut ? [leftOut] : [])]
    ).filter((n): n is string => Boolean(n)),
  };
}

registerLinter({
  name: "eslint",
  languages: ["javascript", "typescript"],
  capabilities: ESLINT_CAPABILITIES,
  lint: eslintLint,
  cachesPerFile: true,
});

registerFixer({
  name: "eslint",
  languages: ["javascript", "typescript"],
  // only/except narrow its fixes (ESLint's `fix` predicate; suggestions likewise).
  capabilities: { ...ESLINT_CAPABILITIES, ruleScope: true },
  async candidates(ctx, req) {
    const { reports } = await computeFix(ctx, { ...req, dryRun: true });
    return reports.filter((r) => r.output !== undefined).map((r) => r.file);
  },
  async scope(ctx, req) {
    const { reports } = await computeFix(ctx, { ...req, dryRun: true });
    return reports.map((r) => r.file);
  },
  fix: eslintFix,
});
