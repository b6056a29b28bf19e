import path from "node:path";
import { z } from "zod";
import { CONFIG_DOC, PATH_DOC } from "./arg-docs.js";
import { ToolError } from "../../errors.js";
import { requireFilesMatch } from "./files-matched.js";
import { defineTool, READ_ONLY, PATH_AND_CONFIG } from "../../engine/tool.js";
import { findTypeChecker, typeCheckerNames } from "../../adapters/type-checkers.js";
import { chooseTypeChecker } from "../../adapters/tool-choice.js";
import { displayPaths } from "../../findings/display-path.js";
import { findingsView, issueString } from "../../findings/views.js";
import { estimateTokens } from "../../findings/budget.js";
import { LISTING_ARGS, listingFields, listingOf } from "./listing.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import { fileFilter } from "../../findings/file-filter.js";
import { hasFilesOf, type ProjectLanguage } from "../../adapters/project-languages.js";
import { isWithin } from "../../paths/allowlist.js";
import { cachedField, resultCacheOf } from "../../cache/service.js";
import {
  cachedWholeCall,
  keyArgs,
  RUN_NOTE,
  toolIdentity,
  wholeLanguageOf,
} from "../../adapters/whole-program.js";

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
      const choice = args.checker
        ? undefined
        : chooseTypeChecker(args.path, ctx.allowlist.rootOf(args.path) ?? undefined);
      const name = args.checker ?? choice?.picks[0]?.name;
      const checker = name ? findTypeChecker(name) : undefined;
      if (args.checker && !checker) throw new ToolError("invalid_input", `unknown checker ${args.checker}`);
      // A Python project's default checker needs no note; any other choice says why it was made.
      const pickNotes =
        choice && !(choice.languages.every((l) => l === "python") && name === "ty") ? choice.notes : [];
      if (!checker || !checker.languages.some((l) => hasFilesOf(args.path, l as ProjectLanguage))) {
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
      const request = { target: args.path, strict: args.strict, config: args.config, args, shown: filter };
      const cache = resultCacheOf(ctx);
      const language = wholeLanguageOf(checker.languages);
      const root = ctx.allowlist.rootOf(args.path) ?? args.path;
      const cached =
        cache && language
          ? await cachedWholeCall({
              cache,
              kind: `type_check ${checker.name}`,
              language,
              target: args.path,
              root,
              identity: { tool: await toolIdentity(ctx, checker.name, args.path), args: keyArgs(args, root) },
              run: () => checker.check(ctx, request),
              onHit: (o) => ({ ...o, notes: o.notes.filter((n) => !RUN_NOTE.test(n)) }),
            })
          : undefined;
      if (!cached) ctx.progress?.({ message: `checking with ${checker.name}` });
      const outcome = cached ? cached.value : await checker.check(ctx, request);
      const within = outcome.viewWithin;
      const inView = (file: string) =>
        (!within || file === within || isWithin(within, file)) && (!filter || filter(file));
      const filtered = filter !== undefined || within !== undefined;
      const shown = filtered ? outcome.findings.filter((f) => inView(f.file)) : outcome.findings;
      const display = displayPaths(args.path, ctx.allowlist.roots.effective);
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
        passed: outcome.passed && blocking === 0,
        checker: checker.name,
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
        ...(cached && { cached: cachedField(cached.cache) }),
        output: outcome.findings.length === 0 && !outcome.passed ? outcome.output : undefined,
        truncated: outcome.truncated || view.capped,
        ...listingFields(checker.name, view, { lists: ["issues", "findings"] }),
        notes: [...pickNotes, ...outcome.notes],
        ...(await sarifField(ctx, args.output, display, [
          {
            tool: checker.name,
            ...(outcome.version && { version: () => Promise.resolve(outcome.version) }),
            findings: view.all,
            notes: outcome.notes,
            command: outcome.command,
          },
        ])),
      };
    },
  });
};
