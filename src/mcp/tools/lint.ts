import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { displayPaths } from "../../findings/display-path.js";
import { findingsView, issueString } from "../../findings/views.js";
import { estimateTokens } from "../../findings/budget.js";
import type { Finding } from "../../findings/model.js";
import { perFileFields, perFileListingCost } from "../../findings/file-view.js";
import { LISTING_ARGS, listingFields, listingOf, snippetFindings } from "./listing.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import { defineTool, READ_ONLY, PATH_AND_CONFIG } from "../../engine/tool.js";
import { findLinter, linterNames } from "../../adapters/linters.js";
import { ToolError } from "../../errors.js";
import type { LinterCapabilities, LintOptions } from "../../adapters/lint-options.js";
import { hasFilesOf, projectLanguages, type ProjectLanguage } from "../../adapters/project-languages.js";
import {
  AGENT_ARGS,
  capPerRule,
  changedAsFiles,
  offenseOf,
  resolveAgentArgs,
  scopeFindings,
} from "./lint-scope.js";

/** Linters whose `files` argument takes paths relative to `path` (how `changed` reaches them). */
const TAKES_FILES = new Set(["ruff", "flake8", "eslint"]);

export const lintTool = () =>
  defineTool({
    name: "lint",
    description:
      "Lint files or inline `source_code` (ruff, flake8, eslint, go vet, clippy, rubocop; default by language): findings with their corrections. Use before editing or committing.",
    input: z.strictObject({
      path: z.string(),
      linter: z.enum(linterNames()).optional().describe("Default: by language"),
      config: z.string().optional(),
      files: z.array(z.string()).optional(),
      format: z.enum(["compact", "full"]).optional().describe("full: also offenses with corrections"),
      output: OUTPUT_ARG,
      ...LISTING_ARGS,
      ...AGENT_ARGS,
    }),
    annotations: { title: "Lint", ...READ_ONLY },
    paths: [{ arg: "path", kind: "any", mayBeMissing: true }, PATH_AND_CONFIG[1]!],
    async handler(args, ctx) {
      const inline = args.source_code !== undefined;
      const picked = args.linter
        ? { name: args.linter, notes: [] }
        : defaultLinter(inline && !existsSync(args.path) ? path.dirname(args.path) : args.path, args.path);
      const linter = findLinter(picked.name);
      if (!linter) throw new ToolError("invalid_input", `unknown linter ${picked.name}`);
      const agent = await resolveAgentArgs(ctx, args, linter, {
        fixing: false,
        takesFiles: TAKES_FILES.has(linter.name),
      });
      const nothingThere =
        !inline && !linter.languages.some((l) => hasFilesOf(args.path, l as ProjectLanguage));
      if (nothingThere || agent.nothingChanged) {
        const notes = [
          ...picked.notes,
          ...agent.notes,
          nothingThere
            ? `checked nothing: ${linter.name} lints ${linter.languages.join(", ")} and there are no such files under ${args.path}`
            : "checked nothing: no file changed",
        ];
        return {
          success: true,
          // Nothing linted is no pass: no `passed` at all, and the note says why.
          nothing_checked: true,
          linter: linter.name,
          issues: [],
          issue_count: 0,
          notes,
          // Asked for SARIF, a run with no results (and the note) says the same.
          ...(await sarifField(ctx, args.output, displayPaths(args.path, ctx.allowlist.roots.effective), [
            { tool: linter.name, findings: [], notes },
          ])),
        };
      }
      const options = agent.options;
      const lintArgs =
        options.changedFiles && TAKES_FILES.has(linter.name)
          ? { ...args, files: changedAsFiles(args.path, options.changedFiles) }
          : args;
      const outcome = await linter.lint(ctx, {
        target: args.path,
        config: args.config,
        args: lintArgs,
        options,
      });
      const display = displayPaths(
        inline ? path.dirname(args.path) : args.path,
        ctx.allowlist.roots.effective,
      );
      // Rule scope and changed files hold whatever the adapter did; the per-rule cap lists, the rest is counted.
      const scoped = scopeFindings(outcome.findings, options);
      const inScope = new Set(scoped);
      const capped = capPerRule(scoped, options.maxPerRule);
      // Offenses (seed 003's shape, with corrections) cost several times an issue string: they are listed
      // when asked for (format full) or when the call uses seed 003's arguments.
      const withOffenses =
        args.format === "full" ||
        inline ||
        args.only !== undefined ||
        args.except !== undefined ||
        args.changed !== undefined ||
        args.max_per_rule !== undefined;
      // Each listed finding costs its issue string, its offense when listed, and its files[] entry (ESLint).
      const perFileCost = outcome.perFile && perFileListingCost().cost;
      const listing = listingOf(ctx, args, {
        cost: (f: Finding) =>
          (perFileCost ? perFileCost(f) : estimateTokens(issueString(f))) +
          (withOffenses ? estimateTokens(offenseOf(f)) : 0),
      });
      const view = findingsView(capped.kept, { display, fingerprints: args.output === "sarif", listing });
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
        issues: outcome.issueText
          ? view.listed.map((f) => outcome.issueText!(f, f.path ?? f.file))
          : view.issues,
        issue_count: view.count + unreported,
        ...(perFile && { files: perFile.files }),
        ...outcome.extra,
        // The adapter's raw `findings` list shows what the call's scope (rules, changed files, `files`) keeps.
        ...(Array.isArray(outcome.extra?.findings) &&
          scoped.length !== outcome.findings.length && {
            findings: (outcome.extra.findings as Finding[]).filter((f) => inScope.has(f)),
          }),
        ...(withOffenses && { offenses: view.listed.map(offenseOf) }),
        summary: {
          ...extraSummary,
          ...perFile?.summary,
          target_file_count: inline ? 1 : undefined,
          offense_count: view.count + unreported,
          unreported_offenses: capped.unreported,
        },
        returncode: outcome.returncode,
        output: outcome.output,
        truncated: outcome.truncated || view.capped || perFile?.capped,
        ...listingFields(linter.name, view, {
          lists: [
            "issues",
            ...(withOffenses ? ["offenses"] : []),
            ...(args.context_lines ? ["findings"] : []),
          ],
          ...(perFile && { perFile: "files" }),
        }),
        ...snippetFindings(view, args),
        notes: [
          ...picked.notes,
          ...agent.notes,
          ...outcome.notes,
          ...capabilityNotes(linter.name, linter.capabilities, options),
        ],
        ...(await sarifField(ctx, args.output, display, [
          { ...outcome, findings: view.all, notes: outcome.notes },
        ])),
      };
    },
  });

/** The linter each other language defaults to (go vet ships with Go; staticcheck and golint may not). */
const OTHER_DEFAULTS: [ProjectLanguage, string][] = [
  ["go", "govet"],
  ["rust", "clippy"],
  ["ruby", "rubocop"],
];

/**
 * ruff when the project has Python (the long-standing default), else eslint for JavaScript/TypeScript, else
 * the project's Go, Rust or Ruby linter.
 */
export function defaultLinter(target: string, inlinePath?: string): { name: string; notes: string[] } {
  const languages = inlinePath ? inlineLanguages(inlinePath, target) : projectLanguages(target);
  const js = languages.some((l) => l === "typescript" || l === "javascript");
  const other = OTHER_DEFAULTS.find(([l]) => languages.includes(l));
  if (!languages.includes("python") && !js && other)
    return {
      name: other[1],
      notes: [`linter: ${other[1]} (the project's languages: ${languages.join(", ")})`],
    };
  if (languages.includes("python") || !js)
    return {
      name: "ruff",
      notes: js
        ? ['linted the Python files with ruff; pass linter: "eslint" for the JavaScript/TypeScript ones']
        : [],
    };
  return { name: "eslint", notes: [`linter: eslint (the project's languages: ${languages.join(", ")})`] };
}

/** The language of inline code: from its file's extension, else the project's. */
function inlineLanguages(file: string, dir: string): ProjectLanguage[] {
  const ext = path.extname(file);
  const byExt: Record<string, ProjectLanguage> = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".js": "javascript",
    ".mjs": "javascript",
    ".jsx": "javascript",
    ".rb": "ruby",
    ".rs": "rust",
    ".go": "go",
  };
  const lang = byExt[ext];
  return lang ? [lang] : projectLanguages(dir);
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
