import path from "node:path";
import { z } from "zod";
import { CONFIG_DOC, PATH_DOC } from "./arg-docs.js";
import { ToolError } from "../../errors.js";
import { requireFilesMatch } from "./files-matched.js";
import { defineTool, READ_ONLY, PATH_AND_CONFIG, type ToolContext } from "../../engine/tool.js";
import {
  findTypeChecker,
  typeCheckerNames,
  type TypeCheckerAdapter,
  type TypeCheckOutcome,
} from "../../adapters/type-checkers.js";
import { chooseTypeChecker, placeNamed, withNestedTypeChecks } from "../../adapters/tool-choice.js";
import { ownTypeCheckRoots, relativeDirs } from "../../adapters/type-check-units.js";
import { displayPaths } from "../../findings/display-path.js";
import { findingsView, issueString } from "../../findings/views.js";
import { estimateTokens } from "../../findings/budget.js";
import { LISTING_ARGS, listingFields, listingOf } from "./listing.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import { fileFilter } from "./file-filter.js";
import { hasFilesOf, type ProjectLanguage } from "../../adapters/project-languages.js";
import { isWithin } from "../../paths/allowlist.js";
import { addTallies, type FindingTally } from "../../findings/collector.js";
import { cacheFields, cachedField, resultCacheOf } from "../../cache/service.js";
import {
  cachedWholeCall,
  keyArgs,
  RUN_NOTE,
  toolIdentity,
  wholeLanguageOf,
} from "../../adapters/whole-program.js";
import { tscReads, type InputRule } from "../../adapters/whole-closure.js";
import {
  everyProjectFailed,
  failureNote,
  projectFailure,
  projectNotes,
  withFailedProjects,
  type ProjectFailure,
} from "./project-failures.js";

/** What a checker's run reports it read (tsc: its config chain and sources), out of the outcome kept. */
function readsOf(outcome: TypeCheckOutcome, rule: InputRule, readable: (file: string) => boolean) {
  const { reads, ...value } = outcome;
  return { value, read: reads ? tscReads(reads, rule, readable) : undefined };
}

/** The validated arguments of a call, as far as a checker's run reads them. */
type TypeCheckArgs = { path: string; strict: boolean; config?: string } & Record<string, unknown>;

interface CheckerRun {
  checker: TypeCheckerAdapter;
  /** Where it ran: the call's path or a project below it. */
  target: string;
  outcome: TypeCheckOutcome;
  cached?: { cache: { cached: number; total: number } };
}

/** One checker's run at `target`, through the result cache when it keeps whole runs of its language. */
async function runChecker(
  ctx: ToolContext,
  checker: TypeCheckerAdapter,
  target: string,
  callArgs: TypeCheckArgs,
  shown: ((file: string) => boolean) | undefined,
): Promise<CheckerRun> {
  const args = { ...callArgs, path: target };
  const request = { target, strict: args.strict, config: args.config, args, shown };
  const cache = resultCacheOf(ctx);
  const language = wholeLanguageOf(checker.languages);
  const root = ctx.allowlist.rootOf(target) ?? target;
  const cached =
    cache && language
      ? await cachedWholeCall({
          ctx,
          cache,
          kind: `type_check ${checker.name}`,
          language,
          target,
          root,
          identity: {
            tool: await toolIdentity(ctx, checker.name, target, args.config),
            args: keyArgs(args, root),
            // The nested projects the run leaves to their own runs (type-check-units.ts).
            ...(checker.languages.includes("python") && {
              nested: relativeDirs(root, ownTypeCheckRoots(target, root)),
            }),
            ...(checker.keyFacts && { facts: await checker.keyFacts(ctx, request) }),
          },
          run: () => checker.check(ctx, request),
          reads: readsOf,
          onHit: (o) => ({ ...o, notes: o.notes.filter((n) => !RUN_NOTE.test(n)) }),
        })
      : undefined;
  if (!cached) ctx.progress?.({ message: `checking with ${checker.name}` });
  const outcome = cached ? cached.value : await checker.check(ctx, request);
  return { checker, target, outcome, cached };
}

/** The runs of a path holding several projects as one: every finding, passed only when each passed. */
function mergedRun(runs: readonly CheckerRun[]): { outcome: TypeCheckOutcome; cached: undefined } {
  const outcomes = runs.map((r) => r.outcome);
  // Each run's view stays within its own target (a checker that ran on more than it says so).
  const inView = (o: TypeCheckOutcome) =>
    o.viewWithin
      ? o.findings.filter((f) => f.file === o.viewWithin || isWithin(o.viewWithin as string, f.file))
      : o.findings;
  let beyond: FindingTally | undefined;
  for (const o of outcomes) if (o.beyond) beyond = addTallies(beyond, o.beyond);
  return {
    cached: undefined,
    outcome: {
      findings: outcomes.flatMap(inView),
      beyond,
      totalInProject: outcomes.reduce((n, o) => n + (o.totalInProject ?? o.findings.length), 0),
      command: outcomes.map((o) => o.command).join(" && "),
      returncode: Math.max(...outcomes.map((o) => o.returncode ?? 0)),
      output:
        outcomes
          .map((o) => (o.findings.length === 0 && !o.passed ? o.output : undefined))
          .filter(Boolean)
          .join("\n") || undefined,
      truncated: outcomes.some((o) => o.truncated),
      notes: outcomes.flatMap((o) => o.notes),
      passed: outcomes.every((o) => o.passed),
    },
  };
}

/** What a result says of each checker of a path holding several projects. */
function checkerEntry(run: CheckerRun, shownPath: string) {
  const errors = run.outcome.findings.filter((f) => f.severity === "error").length;
  return {
    checker: run.checker.name,
    path: shownPath,
    command: run.outcome.command,
    returncode: run.outcome.returncode,
    passed: run.outcome.passed && errors === 0,
    issue_count: run.outcome.findings.filter((f) => f.severity !== "info").length,
    ...(run.cached && { cached: cachedField(run.cached.cache) }),
  };
}

/** Listed only once a type checker is registered. */
export const typeCheckTool = () => {
  const names = typeCheckerNames();
  if (names.length === 0) return undefined;
  return defineTool({
    name: "type_check",
    description: "Type-check a project (ty, mypy, pyright, tsc, go, cargo).",
    input: z.strictObject({
      path: z.string().describe(PATH_DOC),
      checker: z
        .enum(names as [string, ...string[]])
        .optional()
        .describe("Default: by the project"),
      strict: z.boolean().default(false).describe("ty: warnings fail too"),
      config: z.string().optional().describe(CONFIG_DOC),
      files: z.array(z.string()).optional().describe("Show only these files' findings"),
      output: OUTPUT_ARG,
      ...LISTING_ARGS,
    }),
    annotations: { title: "Type check", ...READ_ONLY },
    paths: PATH_AND_CONFIG,
    async handler(args, ctx) {
      const root0 = ctx.allowlist.rootOf(args.path) ?? undefined;
      const choice = args.checker ? undefined : chooseTypeChecker(args.path, root0);
      const name = args.checker ?? choice?.picks[0]?.name;
      const checker = name ? findTypeChecker(name) : undefined;
      if (args.checker && !checker) throw new ToolError("invalid_input", `unknown checker ${args.checker}`);
      // Where each checker runs: the path, or each project below it when it holds several (tool-choice.ts).
      const placed = args.checker
        ? placeNamed(args.checker, (checker as TypeCheckerAdapter).languages, args.path, root0)
        : undefined;
      // A nested Python project with its own type-checker configuration runs at its own root (type-check-units.ts).
      const picks = withNestedTypeChecks(
        placed?.picks ?? choice?.picks ?? [],
        args.path,
        root0,
        args.checker,
      );
      const several = picks.some((p) => p.target !== undefined);
      // A Python project's default checker needs no note; any other choice says why it was made.
      const pickNotes = [
        ...(choice && !(choice.languages.every((l) => l === "python") && name === "ty") ? choice.notes : []),
        ...(placed?.notes ?? []),
      ];
      if (
        !checker ||
        (!several &&
          !checker.languages.some((l) =>
            hasFilesOf(args.path, l as ProjectLanguage, checker.scripts !== false),
          ))
      ) {
        const notes = [
          ...pickNotes,
          checker
            ? `checked nothing: ${checker.name} checks ${checker.languages.join(", ")} and there are no such files under ${args.path}`
            : `checked nothing: ${choice?.nothing ?? "no type checker fits"}`,
        ];
        return {
          success: true,
          // Nothing checked is no pass: no `passed` at all, and the note says why.
          nothing_checked: true,
          ...(checker && { checker: checker.name }),
          issues: [],
          issue_count: 0,
          notes,
          // Asked for SARIF, a run with no results (and the note) says the same.
          ...(await sarifField(ctx, args.output, displayPaths(args.path, ctx.allowlist.roots.effective), [
            { tool: checker?.name ?? "type_check", findings: [], notes },
          ])),
        };
      }
      const base = path.extname(args.path) ? path.dirname(args.path) : args.path;
      const filter = fileFilter(ctx, base, args.files);
      if (filter && args.files) requireFilesMatch(base, filter, args.files, `type_check ${checker.name}`);
      const runs: CheckerRun[] = [];
      const display = displayPaths(args.path, ctx.allowlist.roots.effective);
      // Where a run was, as shown: the project root itself is "." (a nested project's runs beside it).
      const where = (t: string) => (t === display.root ? "." : display.show(t) || ".");
      // With several projects, one checker's failure (not installed, a broken config) is reported beside
      // the others' results, and the call does not pass; alone, it is the call's error.
      const failed: (ProjectFailure & { checker: string })[] = [];
      for (const pick of several ? picks : [{ name: checker.name, target: args.path }]) {
        const own = findTypeChecker(pick.name) as TypeCheckerAdapter;
        const target = pick.target ?? args.path;
        try {
          runs.push(await runChecker(ctx, own, target, args, filter));
        } catch (err) {
          if (!several || !(err instanceof ToolError)) throw err;
          failed.push({ checker: own.name, ...projectFailure(err, where(target)) });
        }
      }
      if (runs.length === 0 && failed.length) throw everyProjectFailed(failed, "checkers");
      const run = runs.length === 1 ? (runs[0] as CheckerRun) : mergedRun(runs);
      const { outcome, cached } = run;
      const within = outcome.viewWithin;
      const inView = (file: string) =>
        (!within || file === within || isWithin(within, file)) && (!filter || filter(file));
      const filtered = filter !== undefined || within !== undefined;
      const shown = filtered ? outcome.findings.filter((f) => inView(f.file)) : outcome.findings;
      const view = findingsView(shown, {
        display,
        fingerprints: true,
        beyond: outcome.beyond,
        // Each listed finding is shown twice: as an issue string and as an object.
        listing: listingOf(ctx, args, {
          cost: (f) => estimateTokens(f) + Math.ceil(issueString(f).length / 4) + 2,
        }),
      });
      const counts = view.counts;
      const blocking = counts.error + (args.strict ? counts.warning : 0);
      return {
        success: true,
        passed: outcome.passed && blocking === 0 && failed.length === 0,
        ...(several
          ? {
              checkers: [...runs.map((r) => checkerEntry(r, where(r.target))), ...failed],
            }
          : { checker: checker.name }),
        command: outcome.command,
        issues: view.issues,
        issue_count: view.count,
        findings: view.listed,
        summary: {
          errors: counts.error,
          warnings: counts.warning,
          info: counts.info,
          total_in_project: outcome.totalInProject ?? outcome.findings.length,
          scope: filtered ? "filtered" : "full",
        },
        returncode: outcome.returncode,
        ...cacheFields(cached?.cache),
        output: outcome.findings.length === 0 && !outcome.passed ? outcome.output : undefined,
        truncated: outcome.truncated || view.capped,
        ...withFailedProjects(
          listingFields(several ? "type_check" : checker.name, view, { lists: ["issues", "findings"] }),
          failed,
        ),
        notes: [
          ...pickNotes,
          ...failed.map((f) => failureNote(f.checker, f)),
          // Over several projects, each run's notes name its project.
          ...(several ? runs.flatMap((r) => projectNotes(where(r.target), r.outcome.notes)) : outcome.notes),
        ],
        ...(await sarifField(
          ctx,
          args.output,
          display,
          runs.map((r) => ({
            tool: r.checker.name,
            ...(r.outcome.version && { version: () => Promise.resolve(r.outcome.version as string) }),
            findings: ((own) => view.all.filter((f) => own.has(f)))(new Set(r.outcome.findings)),
            notes: r.outcome.notes,
            command: r.outcome.command,
          })),
        )),
      };
    },
  });
};
