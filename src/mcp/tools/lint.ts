import { z } from "zod";
import { displayPaths } from "../../findings/display-path.js";
import { findingsView } from "../../findings/views.js";
import { perFileFields, perFileListingCost } from "../../findings/file-view.js";
import { LISTING_ARGS, listingFields, listingOf, snippetFindings } from "./listing.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import { defineTool, READ_ONLY, PATH_AND_CONFIG } from "../../engine/tool.js";
import { findLinter, linterNames } from "../../adapters/linters.js";
import { ToolError } from "../../errors.js";
import { hasFilesOf, projectLanguages, type ProjectLanguage } from "../../adapters/project-languages.js";

export const lintTool = () =>
  defineTool({
    name: "lint",
    description:
      "Lint a file or directory and list its findings as `file:line:col: rule message` (ruff, flake8, eslint, go vet, clippy, rubocop; default by language). Use it to find problems before editing or committing.",
    input: z.strictObject({
      path: z.string().describe("File or directory"),
      linter: z.enum(linterNames()).optional().describe("Default: by the project's languages"),
      config: z.string().optional().describe("Config file"),
      files: z.array(z.string()).optional().describe("Files or globs under path to lint instead"),
      format: z.enum(["compact", "full"]).optional().describe("eslint files[]: compact (default) or full"),
      output: OUTPUT_ARG,
      ...LISTING_ARGS,
    }),
    annotations: { title: "Lint", ...READ_ONLY },
    paths: PATH_AND_CONFIG,
    async handler(args, ctx) {
      const picked = args.linter ? { name: args.linter, notes: [] } : defaultLinter(args.path);
      const linter = findLinter(picked.name);
      if (!linter) throw new ToolError("invalid_input", `unknown linter ${picked.name}`);
      if (!linter.languages.some((l) => hasFilesOf(args.path, l as ProjectLanguage))) {
        const notes = [
          ...picked.notes,
          `checked nothing: ${linter.name} lints ${linter.languages.join(", ")} and there are no such files under ${args.path}`,
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
      const outcome = await linter.lint(ctx, { target: args.path, config: args.config, args });
      const display = displayPaths(args.path, ctx.allowlist.roots.effective);
      const listing = listingOf(ctx, args, outcome.perFile && perFileListingCost());
      const view = findingsView(outcome.findings, {
        display,
        fingerprints: args.output === "sarif",
        listing,
      });
      const perFile =
        outcome.perFile &&
        perFileFields(outcome.perFile, view.all, display.show, {
          listed: view.listed,
          trimmed: view.listing?.trimmed === true,
        });
      return {
        success: true,
        passed: (outcome.returncode ?? 0) === 0 && view.count === 0,
        command: outcome.command,
        issues: outcome.issueText
          ? view.listed.map((f) => outcome.issueText!(f, f.path ?? f.file))
          : view.issues,
        issue_count: view.count,
        ...(perFile && { files: perFile.files, summary: perFile.summary }),
        ...outcome.extra,
        returncode: outcome.returncode,
        output: outcome.output,
        truncated: outcome.truncated || view.capped || perFile?.capped,
        ...listingFields(linter.name, view),
        ...snippetFindings(view, args),
        notes: [...picked.notes, ...outcome.notes],
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
function defaultLinter(target: string): { name: string; notes: string[] } {
  const languages = projectLanguages(target);
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
