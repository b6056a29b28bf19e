import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { defineTool, READ_ONLY, type ToolContext } from "../../../engine/tool.js";
import { findLinter, linterNames, type LinterAdapter } from "../../../adapters/linters.js";
import { changedFiles } from "../../../adapters/git-changed.js";
import { hasFilesOf, projectLanguages, type ProjectLanguage } from "../../../adapters/project-languages.js";
import { chooseLinters, linterFor } from "../../../adapters/tool-choice.js";
import { displayPaths } from "../../../findings/display-path.js";
import { findingsView, type FindingsView } from "../../../findings/views.js";
import { estimateTokens } from "../../../findings/budget.js";
import { listingFields, listingOf, PAGING_ARGS, withinBudget } from "../listing.js";
import type { Finding } from "../../../findings/model.js";
import type { DiagnosticAdvice } from "../../../policy/advisor.js";
import { ToolError } from "../../../errors.js";
import { adviceIds, advisorOf } from "./shared.js";

/** Linters that lint exactly the `files` they are given; the others run on the project and are filtered. */
const FILE_SCOPED = new Set(["ruff", "flake8", "eslint"]);

type Scope = "staged" | "changed" | "all";

/** Nothing was linted: no pass either, and the note says why. */
const nothingChecked = (scope: Scope, note: string) => ({
  success: true,
  nothing_checked: true,
  scope,
  findings: [],
  finding_count: 0,
  notes: [note],
});

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
    description:
      "Lint staged, changed or all files with the managed linters and attach each finding's policy advice.",
    input: z.strictObject({
      tool: z.enum(linterNames()).optional(),
      files: z.array(z.string()).max(1000).optional(),
      scope: z.enum(["staged", "changed", "all"]).optional(),
      path: z.string().optional(),
      ...PAGING_ARGS,
    }),
    annotations: { title: "Lint check", ...READ_ONLY },
    traits: { advisory: false, reads_files: true, runs_tools: true, persists_traces: false },
    paths: [
      { arg: "path", kind: "directory", default: "." },
      { arg: "files", kind: "any", list: true, base: "path" },
    ],
    async handler(args, ctx) {
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
      const linters = pickLinters(dir, selected, args.tool);
      if (linters.length === 0)
        return nothingChecked(scope, "no managed linter lints these files' languages");
      const runs: LinterRun[] = [];
      const all: Finding[] = [];
      for (const linter of linters) {
        const files = selected?.filter((f) =>
          linter.languages.some((l) => hasFilesOf(f, l as ProjectLanguage)),
        );
        // Like `lint`: a linter with no file of its languages here checks nothing (and passes nothing).
        if (files ? files.length === 0 : !linter.languages.some((l) => hasFilesOf(dir, l as ProjectLanguage)))
          continue;
        const scoped = files && FILE_SCOPED.has(linter.name);
        const outcome = await linter.lint(ctx, { target: dir, args: scoped ? { files } : {} });
        let findings = outcome.findings;
        if (files && !scoped) {
          findings = findings.filter((f) => files.some((g) => isInside(g, f.file)));
          notes.push(
            `${linter.name} ran on ${display.show(dir) || "."}; its findings were kept for the selected files`,
          );
        }
        for (const f of findings) all.push(f);
        runs.push({
          linter: linter.name,
          command: outcome.command,
          returncode: outcome.returncode,
          finding_count: findings.length,
          // Its exit code was about the whole project; the selected files pass or fail by their findings.
          ...(files && !scoped ? { filtered: true } : {}),
          ...(outcome.notes.length ? { notes: outcome.notes } : {}),
        });
      }
      if (runs.length === 0)
        return nothingChecked(
          scope,
          `${linters.map((l) => l.name).join(", ")} found no files of ${linters.length > 1 ? "their" : "its"} languages to lint`,
        );
      // Under the result budget like lint: each listed finding costs its entry (with its policy ids); the
      // advice of each listed rule comes on top, so the result is measured and listed again with less.
      const listing = listingOf(ctx, args, { cost: (f) => estimateTokens(entryOf(f)) + 8 });
      const advisor = advisorOf(ctx);
      const checked = selected?.map((f) => display.show(f));
      return withinBudget(listing.maxTokens, (maxTokens) =>
        shapeResult(findingsView(all, { display, listing: { ...listing, maxTokens } })),
      );
      function shapeResult(view: FindingsView) {
        const advice: Record<string, DiagnosticAdvice> = {};
        const findings = view.listed.map((f) => {
          const key = `${f.tool}:${f.rule_id}`;
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
          passed: runs.every((r) => r.filtered || (r.returncode ?? 0) === 0) && view.count === 0,
          scope,
          ...(checked ? { files: checked.slice(0, 100), file_count: checked.length } : {}),
          linters: runs,
          findings,
          finding_count: view.count,
          truncated: view.capped,
          ...listingFields(linters.length === 1 ? linters[0]!.name : "lint_check", view, {
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

/** What lint_check reports of each linter it ran. */
interface LinterRun {
  linter: string;
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

/**
 * The named linter, or one per language of the files (or the project), as `lint` picks them (tool-choice.ts).
 */
function pickLinters(dir: string, files: string[] | undefined, named: string | undefined): LinterAdapter[] {
  if (named) {
    const linter = findLinter(named);
    if (!linter) throw new ToolError("invalid_input", `unknown linter ${named}`);
    return [linter];
  }
  const names = files
    ? [...new Set(files.flatMap((f) => projectLanguages(f).map((l) => linterFor(l, f, dir))))]
    : chooseLinters(dir, dir).picks.map((p) => p.name);
  return names.flatMap((n) => (n ? (findLinter(n) ?? []) : []));
}
