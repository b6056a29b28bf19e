import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { defineTool, READ_ONLY, type ToolContext } from "../../../engine/tool.js";
import { linterNames } from "../../../adapters/linters.js";
import { changedFiles, stagedViewFor } from "../../../adapters/git-changed.js";
import { hasFilesOf, type ProjectLanguage } from "../../../adapters/project-languages.js";
import { displayPaths } from "../../../findings/display-path.js";
import { findingsView, type FindingsView } from "../../../findings/views.js";
import { estimateTokens } from "../../../findings/budget.js";
import { listingFields, listingOf, PAGING_ARGS, withinBudget } from "../listing.js";
import type { Finding } from "../../../findings/model.js";
import type { DiagnosticAdvice } from "../../../policy/advisor.js";
import { adviceIds, advisorOf } from "./shared.js";
import { policyRuntime, refreshPolicy } from "../policy/runtime.js";
import { MAX_COMMAND_CHARS } from "../../../policy/checks.js";
import { gitOutput } from "../../../adapters/git-sandbox.js";
import { lintersForFiles } from "../pipeline/choose.js";
import { lintThroughCache, TAKES_FILES } from "../pipeline/run-lint.js";
import { nothingChecked as nothingCheckedResult } from "../pipeline/nothing-checked.js";
import { cacheFields } from "../../../cache/service.js";
import { runPolicyLint, type Scope } from "./policy-lint-run.js";

/** Nothing was linted: no pass either, and the note says why. */
const nothingChecked = (scope: Scope, note: string) =>
  nothingCheckedResult({ scope, findings: [], finding_count: 0 }, [note]);

/** A listed finding as lint_check shows it (before its policy ids). */
const entryOf = (f: Finding) => ({
  tool: f.tool,
  rule_id: f.rule_id,
  severity: f.severity,
  message: f.message,
  path: f.path,
  line: f.line,
  column: f.column,
  ...(f.end_line ? { end_line: f.end_line, end_column: f.end_column } : {}),
});

/** A file given, or a file inside a folder given. */
const isInside = (given: string, file: string) => file === given || file.startsWith(given + path.sep);

export const lintCheckTool = () =>
  defineTool({
    name: "lint_check",
    description: "Lint staged, changed or all files; each finding with its policy advice.",
    input: z.strictObject({
      tool: z.enum(linterNames()).optional().describe("Default: by the files' languages"),
      files: z.array(z.string()).max(1000).optional().describe("Files or folders under path"),
      scope: z
        .enum(["staged", "changed", "all"])
        .optional()
        .describe("staged: git's index; changed: since HEAD"),
      path: z.string().optional().describe("Project folder (default .); relative to cwd"),
      policy_lint: z.boolean().optional().describe("Also the policy's content checks"),
      command: z.string().max(MAX_COMMAND_CHARS).optional().describe("Also judge this command line"),
      ...PAGING_ARGS,
    }),
    annotations: { title: "Lint check", ...READ_ONLY },
    traits: { advisory: false, reads_files: true, runs_tools: true, persists_traces: false },
    paths: [
      { arg: "path", kind: "directory", default: "." },
      { arg: "files", kind: "any", list: true, base: "path" },
    ],
    async handler(args, ctx) {
      await refreshPolicy(ctx);
      const dir = args.path as string;
      const scope: Scope = args.scope ?? "all";
      const selected = await selectFiles(ctx, dir, scope, args.files);
      const display = displayPaths(dir, ctx.allowlist.roots.effective);
      const notes: string[] = [];
      if (selected && selected.length === 0)
        return nothingChecked(
          scope,
          `no ${scope === "all" ? "" : `${scope} `}files to lint under ${display.show(dir) || "."}`,
        );
      const commandCheck =
        args.command === undefined ? undefined : await judgeCommand(ctx, dir, args.command);
      const placements = lintersForFiles(ctx, dir, selected, args.tool);
      const policyRun =
        (args.policy_lint ?? !args.tool) ? await runPolicyLint(ctx, dir, scope, selected) : undefined;
      if (placements.length === 0 && !policyRun)
        return nothingChecked(scope, "no managed linter lints these files' languages");
      const runs: LinterRun[] = [];
      const all: Finding[] = [];
      // Staged: a file whose work tree differs from the index is linted from the index (what the commit holds).
      const partial =
        scope === "staged" && selected
          ? await partiallyStaged(ctx, dir, selected)
          : new Map<string, string>();
      const stagedUnavailable: string[] = [];
      for (const [i, { linter, target, files: own }] of placements.entries()) {
        ctx.progress?.({ done: i, total: placements.length, message: `linting with ${linter.name}` });
        let files = own;
        // Like `lint`: a linter with no file of its languages here checks nothing (and passes nothing).
        if (!files && !linter.languages.some((l) => hasFilesOf(target, l as ProjectLanguage))) continue;
        const inline = files?.filter((f) => partial.has(f)) ?? [];
        if (inline.length) {
          files = files?.filter((f) => !partial.has(f));
          for (const f of inline) {
            if (!linter.capabilities?.inlineSource) {
              stagedUnavailable.push(display.show(f));
              continue;
            }
            const o = await linter.lint(ctx, {
              target: f,
              args: {},
              options: { source: { code: partial.get(f) as string, path: f } },
            });
            all.push(...o.findings.map((x) => ({ ...x, file: x.file || f })));
            runs.push({
              linter: linter.name,
              command: `${o.command} (staged content)`,
              returncode: o.returncode,
              finding_count: o.findings.length,
              filtered: true,
            });
          }
          if (files?.length === 0) continue;
        }
        // The same run `lint` makes: at the linter's project, through the result cache.
        const scoped = files && TAKES_FILES.has(linter.name);
        const outcome = await lintThroughCache(ctx, linter, { target, args: scoped ? { files } : {} });
        let findings = outcome.findings;
        if (files && !scoped) {
          findings = findings.filter((f) => files.some((g) => isInside(g, f.file)));
          notes.push(
            `${linter.name} ran on ${display.show(target) || "."}; its findings were kept for the selected files`,
          );
        }
        for (const f of findings) all.push(f);
        runs.push({
          linter: linter.name,
          ...(target !== dir && { path: display.show(target) || "." }),
          command: outcome.command,
          returncode: outcome.returncode,
          finding_count: findings.length,
          // Its exit code was about the whole project; the selected files pass or fail by their findings.
          ...(files && !scoped ? { filtered: true } : {}),
          ...(outcome.notes.length ? { notes: outcome.notes } : {}),
          ...cacheFields(outcome.cache),
        });
      }
      if (policyRun) {
        all.push(...policyRun.findings);
        runs.push(policyRun.run);
        notes.push(...policyRun.notes);
      }
      if (runs.length === 0) {
        const names = [...new Set(placements.map((p) => p.linter.name))];
        return nothingChecked(
          scope,
          `${names.join(", ")} found no files of ${names.length > 1 ? "their" : "its"} languages to lint`,
        );
      }
      // Under the result budget like lint: each listed finding costs its entry (with its policy ids); the
      // advice of each listed rule comes on top, so the result is measured and listed again with less.
      const listing = listingOf(ctx, args, { cost: (f) => estimateTokens(entryOf(f)) + 8 });
      const advisor = advisorOf(ctx);
      const checked = selected?.map((f) => display.show(f));
      if (stagedUnavailable.length)
        notes.push(
          `${stagedUnavailable.join(", ")}: the work tree differs from the staged version, and the linter cannot lint the staged text; these files were not linted`,
        );
      return withinBudget(listing.maxTokens, (maxTokens) =>
        shapeResult(findingsView(all, { display, listing: { ...listing, maxTokens } })),
      );
      function shapeResult(view: FindingsView) {
        const advice: Record<string, DiagnosticAdvice> = {};
        const findings = view.listed.map((f) => {
          const key = `${f.tool}:${f.rule_id}`;
          if (f.tool === "policy" && policyRun) advice[key] ??= policyRun.advice(f.rule_id);
          advice[key] ??= advisor.adviseDiagnostic({
            tool: f.tool,
            rule: f.rule_id,
            message: f.message,
            path: f.path,
          });
          return { ...entryOf(f), policy_ids: adviceIds(advice[key]).policy_ids };
        });
        return {
          success: true,
          passed:
            runs.every((r) => r.filtered || (r.returncode ?? 0) === 0) &&
            view.count === 0 &&
            stagedUnavailable.length === 0 &&
            commandCheck?.status !== "blocked",
          scope,
          ...(commandCheck && { command_check: commandCheck }),
          ...(stagedUnavailable.length ? { staged_unavailable: stagedUnavailable } : {}),
          ...(checked ? { files: checked.slice(0, 100), file_count: checked.length } : {}),
          linters: runs,
          findings,
          finding_count: view.count,
          truncated: view.capped,
          ...listingFields(placements.length === 1 ? placements[0]!.linter.name : "lint_check", view, {
            lists: ["findings"],
          }),
          bundle_hash: advisor.bundleHash,
          advice: Object.fromEntries(
            Object.entries(advice).map(([k, a]) => [
              k,
              {
                mapped: a.mapped,
                ...adviceIds(a),
                advice: a.policies.map((p) => p.advice),
              },
            ]),
          ),
          rerun: {
            tool: "lint_check",
            arguments: {
              // Display paths are relative to the project root: name it when relative paths would miss it.
              ...(display.root !== ctx.config.cwd ? { path: display.root } : {}),
              ...(args.tool ? { tool: args.tool } : {}),
              ...(checked ? { files: checked } : {}),
            },
          },
          notes,
        };
      }
    },
  });

/**
 * The policy's verdict on the command a lint run stands for (seed 002's `command`), as policy_check_command
 * gives it: its status and each violation's policy and advice.
 */
async function judgeCommand(ctx: ToolContext, dir: string, command: string) {
  const runtime = await policyRuntime(ctx);
  const bundle = runtime.bundleFor(dir, ctx.allowlist);
  const outcome = await runtime.checkCommand(
    bundle,
    { command },
    {
      cwd: dir,
      projectRoot: ctx.allowlist.rootOf(dir) ?? dir,
      home: os.homedir(),
      roots: [...ctx.allowlist.roots.effective],
    },
  );
  return {
    command,
    status: outcome.status,
    violations: outcome.violations.map((v) => ({
      policy_id: v.policy_id,
      severity: v.severity,
      message: v.message,
      advice: v.advice,
    })),
  };
}

/** What lint_check reports of each linter it ran. */
interface LinterRun {
  linter: string;
  /** Its project, when not the call's folder. */
  path?: string;
  command: string;
  returncode: number | null | undefined;
  finding_count: number;
  filtered?: boolean;
  notes?: string[];
}

/**
 * The files a call lints: the `files` given, intersected with git's staged or changed files for those
 * scopes; undefined means the whole project (scope all, no files).
 */
async function selectFiles(
  ctx: ToolContext,
  dir: string,
  scope: Scope,
  given: string[] | undefined,
): Promise<string[] | undefined> {
  if (scope === "all") return given?.length ? [...new Set(given)].sort() : undefined;
  const changed = await changedFiles(
    ctx,
    dir,
    scope === "staged" ? { kind: "staged" } : { kind: "since", revision: "HEAD" },
  );
  const existing = changed.filter((f) => fs.statSync(f, { throwIfNoEntry: false })?.isFile());
  // A changed file must still pass the allowlist (a link out of the project is not linted).
  const inside = existing.filter((f) => {
    try {
      ctx.allowlist.resolve(f, { kind: "file" });
      return true;
    } catch {
      return false;
    }
  });
  if (!given?.length) return inside;
  return inside.filter((f) => given.some((g) => isInside(g, f)));
}

/** Files whose work tree differs from their staged version, with the staged text (read from the index). */
async function partiallyStaged(
  ctx: ToolContext,
  dir: string,
  selected: string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  // What the caller already knows of the index (the pre-commit hook), else git's own answer.
  const view = stagedViewFor(ctx, dir);
  const lines = (args: string[]) => gitOutput(ctx, dir, args, view?.gitEnv);
  const [top] = view ? [view.top] : ((await lines(["rev-parse", "--show-toplevel"])) ?? []);
  if (!top) return out;
  const differing = new Set(
    (view ? [...view.differing] : ((await lines(["diff", "--name-only", "--"])) ?? []))
      .filter(Boolean)
      .map((r) => path.resolve(top, r)),
  );
  for (const f of selected) {
    if (!differing.has(f)) continue;
    const text = await lines(["show", `:${path.relative(top, f).split(path.sep).join("/")}`]);
    if (text) out.set(f, text.length ? `${text.join("\n")}\n` : "");
  }
  return out;
}
