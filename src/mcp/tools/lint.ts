import { existsSync, readdirSync, type Dirent } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { BY_LANGUAGE_DOC, CONFIG_DOC, FILES_DOC, PATH_DOC } from "./arg-docs.js";
import { displayPaths } from "../../findings/display-path.js";
import { findingsView, issueString } from "../../findings/views.js";
import { estimateTokens } from "../../findings/budget.js";
import type { Finding } from "../../findings/model.js";
import { perFileFields, perFileListingCost } from "../../findings/file-view.js";
import { LISTING_ARGS, listingFields, listingOf, snippetFindings } from "./listing.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import { defineTool, READ_ONLY, PATH_AND_CONFIG, type ToolContext } from "../../engine/tool.js";
import {
  findLinter,
  linterNames,
  type LinterAdapter,
  type LintOutcome,
  type LintRequest,
} from "../../adapters/linters.js";
import { chooseLinters, placeNamed } from "../../adapters/tool-choice.js";
import { addTallies, type FindingTally } from "../../findings/collector.js";
import { fileFilter } from "./file-filter.js";
import {
  cachedWholeCall,
  keyArgs,
  RUN_NOTE,
  toolIdentity,
  wholeLanguageOf,
} from "../../adapters/whole-program.js";
import { ToolError } from "../../errors.js";
import { cacheFields, resultCacheOf } from "../../cache/service.js";
import type { LinterCapabilities, LintOptions } from "../../adapters/lint-options.js";
import { hasFilesOf, languageOfFile, type ProjectLanguage } from "../../adapters/project-languages.js";
import {
  AGENT_ARGS,
  capPerRule,
  changedAsFiles,
  filesFrom,
  offenseOf,
  resolveAgentArgs,
  scopeFindings,
} from "./lint-scope.js";

/** Linters whose `files` argument takes paths relative to `path` (how `changed` reaches them). */
const TAKES_FILES = new Set(["ruff", "flake8", "eslint"]);

const LINT_INPUT = z.strictObject({
  path: z.string().describe(PATH_DOC),
  linter: z.enum(linterNames()).optional().describe(BY_LANGUAGE_DOC),
  config: z.string().optional().describe(CONFIG_DOC),
  files: z.array(z.string()).optional().describe(FILES_DOC),
  format: z.enum(["compact", "full"]).optional().describe("ESLint; full: also offenses with corrections"),
  output: OUTPUT_ARG,
  ...LISTING_ARGS,
  ...AGENT_ARGS,
});

type LintArgs = z.infer<typeof LINT_INPUT>;

export const lintTool = () =>
  defineTool({
    name: "lint",
    description:
      "Lint files or inline code (ruff, flake8, eslint, go vet, clippy, rubocop): findings and fixes.",
    input: LINT_INPUT,
    annotations: { title: "Lint", ...READ_ONLY },
    paths: [{ arg: "path", kind: "any", mayBeMissing: true }, PATH_AND_CONFIG[1]!],
    async handler(args, ctx) {
      const inline = args.source_code !== undefined;
      if (!inline && !existsSync(args.path))
        throw new ToolError("path_validation", `path does not exist: ${args.path}`, {
          allowed_paths: ctx.allowlist.roots.effective,
        });
      const base = inline && !existsSync(args.path) ? path.dirname(args.path) : args.path;
      const choice = args.linter
        ? { ...namedLinter(ctx, args.linter, base, inline), nothing: undefined }
        : lintersForCall(ctx, base, args);
      if (choice.picks.length === 0) {
        const notes = [...choice.notes, `checked nothing: ${choice.nothing}`];
        return {
          success: true,
          nothing_checked: true,
          issues: [],
          issue_count: 0,
          notes,
          ...(await sarifField(ctx, args.output, displayPaths(base, ctx.allowlist.roots.effective), [
            { tool: "lint", findings: [], notes },
          ])),
        };
      }
      const runs: LintRun[] = [];
      // A path holding several projects: each linter at each of its projects (tool-choice.ts).
      for (const pick of choice.picks) {
        const target = pick.target;
        const files = target ? filesFrom(args.files, args.path, target) : args.files;
        if (files?.length === 0) continue;
        runs.push(await runLinter(ctx, target ? { ...args, path: target, files } : args, pick.name));
      }
      const ran = runs.filter((r): r is RanLint => r.outcome !== undefined);
      if (runs.length === 1 && ran.length === 1 && ran[0]?.path === args.path)
        return singleResult(ctx, args, ran[0] as RanLint, choice.notes);
      if (ran.length === 0) {
        const notes = [...choice.notes, ...runs.flatMap((r) => r.notes)];
        const only = runs.length === 1 ? runs[0]?.linter.name : undefined;
        return {
          success: true,
          // Nothing linted is no pass: no `passed` at all, and the note says why.
          nothing_checked: true,
          ...(only && { linter: only }),
          issues: [],
          issue_count: 0,
          notes,
          // Asked for SARIF, a run with no results (and the note) says the same.
          ...(await sarifField(
            ctx,
            args.output,
            displayPaths(args.path, ctx.allowlist.roots.effective),
            runs.map((r) => ({ tool: r.linter.name, findings: [], notes })),
          )),
        };
      }
      return mergedResult(ctx, args, ran, [
        ...choice.notes,
        ...runs.filter((r) => !r.outcome).flatMap((r) => r.notes),
      ]);
    },
  });

interface LintRun {
  linter: LinterAdapter;
  /** Where it ran: the call's path or a project below it. */
  path: string;
  notes: string[];
  outcome?: LintOutcome;
  options?: LintOptions;
}
type RanLint = Required<LintRun>;

/**
 * A linter's outcome, through the result cache: adapters that cache per file do it themselves; the others
 * (go vet, staticcheck, golint, clippy, flake8) are kept per project input set here. Inline code is not cached.
 */
async function lintThroughCache(
  ctx: ToolContext,
  linter: LinterAdapter,
  request: LintRequest,
): Promise<LintOutcome> {
  ctx.progress?.({ message: `linting with ${linter.name}` });
  const cache = resultCacheOf(ctx);
  const language = wholeLanguageOf(linter.languages);
  if (!cache || linter.cachesPerFile || !language || request.options?.source)
    return linter.lint(ctx, request);
  const root = ctx.allowlist.rootOf(request.target) ?? request.target;
  type Stored = Omit<LintOutcome, "version" | "issueText"> & { versionText?: string };
  const { value, cache: marker } = await cachedWholeCall<Stored>({
    ctx,
    cache,
    kind: `lint ${linter.name}`,
    language,
    target: request.target,
    root,
    identity: {
      tool: await toolIdentity(ctx, linter.name, request.target),
      args: keyArgs(request.args, root),
      options: keyArgs({ ...request.options }, root),
    },
    async run() {
      const { version, issueText: _own, ...rest } = await linter.lint(ctx, request);
      return { ...rest, versionText: await version?.() };
    },
    onHit: (o) => ({ ...o, notes: o.notes.filter((n) => !RUN_NOTE.test(n)) }),
  });
  const { versionText, ...outcome } = value;
  return { ...outcome, version: () => Promise.resolve(versionText), cache: marker };
}

/**
 * The linters of a call that names none (tool-choice.ts: one per language); with `files`, only those whose
 * languages the files select (so a glob of .py files is not handed to ESLint).
 */
function lintersForCall(ctx: ToolContext, base: string, args: LintArgs) {
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
function namedLinter(ctx: ToolContext, name: string, base: string, inline: boolean) {
  const linter = findLinter(name);
  if (inline || !linter)
    return { picks: [{ name } as { name: string; target?: string }], notes: [] as string[] };
  return placeNamed(name, linter.languages, base, ctx.allowlist.rootOf(base));
}

/** One linter's run over the call's target, or the notes saying why it checked nothing there. */
async function runLinter(ctx: ToolContext, args: LintArgs, name: string): Promise<LintRun> {
  const linter = findLinter(name);
  if (!linter) throw new ToolError("invalid_input", `unknown linter ${name}`);
  const inline = args.source_code !== undefined;
  const agent = await resolveAgentArgs(ctx, args, linter, {
    fixing: false,
    takesFiles: TAKES_FILES.has(linter.name),
  });
  const nothingThere = !inline && !linter.languages.some((l) => hasFilesOf(args.path, l as ProjectLanguage));
  if (nothingThere || agent.nothingChanged)
    return {
      linter,
      path: args.path,
      notes: [
        ...agent.notes,
        nothingThere
          ? `checked nothing: ${linter.name} lints ${linter.languages.join(", ")} and there are no such files under ${args.path}`
          : "checked nothing: no file changed",
      ],
    };
  const options = agent.options;
  const lintArgs =
    options.changedFiles && TAKES_FILES.has(linter.name)
      ? { ...args, files: changedAsFiles(args.path, options.changedFiles) }
      : args;
  const outcome = await lintThroughCache(ctx, linter, {
    target: args.path,
    config: args.config,
    args: lintArgs,
    options,
  });
  return { linter, path: args.path, notes: agent.notes, outcome, options };
}

/** Offenses (seed 003's shape, with corrections) are listed when asked for or when seed 003's arguments are used. */
function withOffenses(args: LintArgs): boolean {
  return (
    args.format === "full" ||
    args.source_code !== undefined ||
    args.only !== undefined ||
    args.except !== undefined ||
    args.changed !== undefined ||
    args.max_per_rule !== undefined
  );
}

/** The result of a call that ran one linter: that linter's own shape (seed 001's files[] for ESLint). */
async function singleResult(ctx: ToolContext, args: LintArgs, run: RanLint, pickNotes: string[]) {
  const { linter, outcome, options } = run;
  const inline = args.source_code !== undefined;
  const display = displayPaths(inline ? path.dirname(args.path) : args.path, ctx.allowlist.roots.effective);
  // Rule scope and changed files hold whatever the adapter did; the per-rule cap lists, the rest is counted.
  const scoped = scopeFindings(outcome.findings, options);
  const inScope = new Set(scoped);
  const { capped, beyond } = capWithBeyond(scoped, outcome, options);
  const offenses = withOffenses(args);
  // Each listed finding costs its issue string, its offense when listed, and its files[] entry (ESLint).
  const perFileCost = outcome.perFile && perFileListingCost().cost;
  const listing = listingOf(ctx, args, {
    cost: (f: Finding) =>
      (perFileCost ? perFileCost(f) : estimateTokens(issueString(f))) +
      (offenses ? estimateTokens(offenseOf(f)) : 0),
  });
  const view = findingsView(capped.kept, { display, fingerprints: args.output === "sarif", listing, beyond });
  const perFile =
    outcome.perFile &&
    perFileFields(outcome.perFile, view.all, display.show, {
      listed: view.listed,
      trimmed: view.listing?.trimmed === true,
      paged: view.listing?.page !== undefined,
    });
  const unreported = Object.values(capped.unreported).reduce((a, b) => a + b, 0);
  const extraSummary = (outcome.extra?.summary ?? {}) as Record<string, unknown>;
  return {
    success: true,
    passed: (outcome.returncode ?? 0) === 0 && view.count === 0,
    command: outcome.command,
    issues: outcome.issueText ? view.listed.map((f) => outcome.issueText!(f, f.path ?? f.file)) : view.issues,
    issue_count: view.count + unreported,
    ...(perFile && { files: perFile.files }),
    ...outcome.extra,
    // The adapter's raw `findings` list shows what the call's scope (rules, changed files, `files`) keeps.
    ...(Array.isArray(outcome.extra?.findings) &&
      scoped.length !== outcome.findings.length && {
        findings: (outcome.extra.findings as Finding[]).filter((f) => inScope.has(f)),
      }),
    ...(offenses && { offenses: view.listed.map(offenseOf) }),
    summary: {
      ...extraSummary,
      ...perFile?.summary,
      target_file_count: inline ? 1 : undefined,
      offense_count: view.count + unreported,
      unreported_offenses: capped.unreported,
    },
    returncode: outcome.returncode,
    ...cacheFields(outcome.cache),
    output: outcome.output,
    truncated: outcome.truncated || view.capped || perFile?.capped,
    ...listingFields(linter.name, view, {
      lists: ["issues", ...(offenses ? ["offenses"] : []), ...(args.context_lines ? ["findings"] : [])],
      ...(perFile && { perFile: "files" }),
    }),
    ...snippetFindings(view, args),
    notes: [
      ...pickNotes,
      ...run.notes,
      ...outcome.notes,
      ...capabilityNotes(linter.name, linter.capabilities, options),
    ],
    ...(await sarifField(ctx, args.output, display, [
      { ...outcome, findings: view.all, notes: outcome.notes },
    ])),
  };
}

/**
 * The result of a call that ran several linters (one per language of the project): their findings in one
 * list under one budget, `linters` saying what each ran and found, `passed` only when every one passed.
 */
async function mergedResult(ctx: ToolContext, args: LintArgs, runs: RanLint[], pickNotes: string[]) {
  const display = displayPaths(args.path, ctx.allowlist.roots.effective);
  const offenses = withOffenses(args);
  const runOf = new Map<Finding, RanLint>();
  const unreported: Record<string, number> = {};
  const kept: Finding[] = [];
  const perLinter = [];
  let beyond: FindingTally | undefined;
  for (const run of runs) {
    const scoped = scopeFindings(run.outcome.findings, run.options);
    const { capped, beyond: more } = capWithBeyond(scoped, run.outcome, run.options);
    for (const f of capped.kept) runOf.set(f, run);
    kept.push(...capped.kept);
    for (const [rule, n] of Object.entries(capped.unreported)) unreported[rule] = (unreported[rule] ?? 0) + n;
    if (more) beyond = addTallies(beyond, more);
    const count =
      capped.kept.length + Object.values(capped.unreported).reduce((a, b) => a + b, 0) + (more?.count ?? 0);
    perLinter.push({
      linter: run.linter.name,
      ...(run.path !== args.path && { path: display.show(run.path) || "." }),
      command: run.outcome.command,
      returncode: run.outcome.returncode,
      issue_count: count,
      passed: (run.outcome.returncode ?? 0) === 0 && count === 0,
      ...cacheFields(run.outcome.cache),
    });
  }
  const listing = listingOf(ctx, args, {
    cost: (f: Finding) => estimateTokens(issueString(f)) + (offenses ? estimateTokens(offenseOf(f)) : 0),
  });
  const view = findingsView(kept, { display, fingerprints: args.output === "sarif", listing, beyond });
  const total = view.count + Object.values(unreported).reduce((a, b) => a + b, 0);
  const issueOf = (f: Finding) => {
    const text = runOf.get(f)?.outcome.issueText;
    return text ? text(f, f.path ?? f.file) : issueString(f);
  };
  const returncodes = runs.map((r) => r.outcome.returncode ?? 0);
  return {
    success: true,
    passed: perLinter.every((l) => l.passed),
    linters: perLinter,
    command: runs.map((r) => r.outcome.command).join(" && "),
    issues: view.listed.map(issueOf),
    issue_count: total,
    ...(offenses && { offenses: view.listed.map(offenseOf) }),
    summary: { offense_count: total, unreported_offenses: unreported },
    returncode: Math.max(...returncodes),
    output:
      runs
        .map((r) => r.outcome.output)
        .filter(Boolean)
        .join("\n") || undefined,
    truncated: runs.some((r) => r.outcome.truncated) || view.capped,
    ...listingFields("lint", view, {
      lists: ["issues", ...(offenses ? ["offenses"] : []), ...(args.context_lines ? ["findings"] : [])],
    }),
    ...snippetFindings(view, args),
    notes: [
      ...pickNotes,
      ...runs.flatMap((r) => [
        ...r.notes,
        ...r.outcome.notes,
        ...capabilityNotes(r.linter.name, r.linter.capabilities, r.options),
      ]),
    ],
    ...(await sarifField(
      ctx,
      args.output,
      display,
      runs.map((r) => ({
        ...r.outcome,
        findings: view.all.filter((f) => runOf.get(f) === r),
        notes: r.outcome.notes,
      })),
    )),
  };
}

/**
 * The per-rule cap over the kept findings; findings the adapter counted but did not keep (`beyond`) go to the
 * view's counts, or with a per-rule cap to the rules' unreported counts (they come after every kept one).
 */
function capWithBeyond(scoped: Finding[], outcome: LintOutcome, options: LintOptions) {
  const capped = capPerRule(scoped, options.maxPerRule);
  const beyond = outcome.beyond;
  if (!beyond || options.maxPerRule === undefined) return { capped, beyond };
  for (const [rule, n] of beyond.byRule) capped.unreported[rule] = (capped.unreported[rule] ?? 0) + n;
  return { capped, beyond: undefined };
}

/** The languages of the files a `files` filter selects under `base` (a bounded walk). */
function filesLanguages(base: string, filter: ((f: string) => boolean) | undefined): Set<ProjectLanguage> {
  const found = new Set<ProjectLanguage>();
  if (!filter) return found;
  let seen = 0;
  const visit = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > 20_000) return;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== "node_modules" && !e.name.startsWith(".")) visit(abs);
      } else if (e.isFile() && filter(abs)) {
        const l = languageOfFile(abs);
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

/** What the linter did not do itself of what was asked (the tool layer then did it over its findings). */
function capabilityNotes(name: string, caps: LinterCapabilities | undefined, options: LintOptions): string[] {
  const notes: string[] = [];
  if (!options.source && !options.rules && !options.changedFiles && options.maxPerRule === undefined)
    return notes;
  if (options.rules && !caps?.ruleScope)
    notes.push(`${name} ran all its rules; only/except were applied to its findings`);
  if (!caps?.corrections) notes.push(`${name} does not report correction edits`);
  return notes;
}
