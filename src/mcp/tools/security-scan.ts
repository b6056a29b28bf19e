import { z } from "zod";
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import { defineTool, type ToolContext, READ_ONLY } from "../../engine/tool.js";
import {
  banditArgs,
  banditSummary,
  banditToFinding,
  hasLevelFlags,
  parseBanditJson,
} from "../../adapters/python/bandit.js";
import { firstVersion } from "../../adapters/registry.js";
import { resolvePythonTool } from "../../adapters/python/resolve.js";
import { findExcludedDirs, projectFirst } from "../../adapters/python/tree-excludes.js";
import { displayPaths } from "../../findings/display-path.js";
import { findingsView, issueString } from "../../findings/views.js";
import { estimateTokens } from "../../findings/budget.js";
import { LISTING_ARGS, listingFields, listingOf } from "./listing.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";

const LEVEL = z.enum(["low", "medium", "high"]);

/** bandit's version per executable, asked once per server (it decides the flag style). */
async function banditVersion(ctx: ToolContext, executable: string): Promise<string | undefined> {
  const cache = ctx.services.get("bandit-versions", () => new Map<string, string | undefined>());
  if (!cache.has(executable)) {
    const run = await ctx.run({ program: executable, args: ["--version"], timeoutMs: 10_000 });
    cache.set(executable, firstVersion(run.stdout + run.stderr));
  }
  return cache.get(executable);
}

export const securityScanTool = () =>
  defineTool({
    name: "security_scan",
    description: "Scan Python code for security issues with bandit.",
    input: z.strictObject({
      path: z.string(),
      severity: LEVEL.default("low"),
      confidence: LEVEL.default("low"),
      output: OUTPUT_ARG,
      ...LISTING_ARGS,
    }),
    annotations: { title: "Security scan", ...READ_ONLY },
    paths: [{ arg: "path", kind: "any" }],
    async handler(args, ctx) {
      const cli = resolvePythonTool(ctx, "bandit", args.path);
      if (!cli.executable)
        throw new ToolError(
          "tool_not_found",
          "bandit is not installed (not in the project's virtualenv nor on PATH)",
        );
      const version = await banditVersion(ctx, cli.executable);
      // Virtualenvs, dependency, build and VCS folders (and .gitignore'd ones) are not scanned.
      const root = ctx.allowlist.rootOf(args.path) ?? args.path;
      const excluded = findExcludedDirs(args.path, root);
      const argv = banditArgs(
        args.path,
        args.severity,
        args.confidence,
        hasLevelFlags(version),
        excluded.dirs,
      );
      const command = displayCommand("bandit", argv);
      // The JSON report is read whole (not the capped stdout), so a long report still parses.
      const lines: string[] = [];
      const run = await ctx.run({
        program: cli.executable,
        args: argv,
        onStdoutLine: (line) => lines.push(line),
      });
      const report = parseBanditJson(lines.join("\n"));
      // 0: nothing found, 1: findings; anything else, or no JSON report, is a failure.
      if (!report || (run.returncode !== 0 && run.returncode !== 1))
        throw new ToolError(
          "tool_error",
          `bandit failed without a report (exit ${run.returncode}); see output`,
          {
            command,
            returncode: run.returncode,
            output: combinedOutput(run.stdout, run.stderr),
            truncated: run.truncated,
          },
        );
      const notes = [`bandit ${version ?? "(unknown version)"}: ${cli.note}`];
      if (excluded.capped)
        notes.push(`more than ${excluded.dirs.length} folders to exclude: the rest are left to bandit`);
      report.results = projectFirst(report.results, (r) => r.filename, root);
      for (const e of report.errors) notes.push(`bandit could not scan ${e.filename}: ${e.reason}`);
      const display = displayPaths(args.path, ctx.allowlist.roots.effective);
      // Every result is a finding (SARIF gets them all); the lists show what fits the budget, each
      // listed finding three times over (bandit's own entry, the issue string, the common finding).
      const common = report.results.map(banditToFinding);
      const raw = new Map(common.map((f, i) => [f, report.results[i]]));
      const view = findingsView(common, {
        display,
        fingerprints: true,
        listing: listingOf(ctx, args, {
          cost: (f) =>
            estimateTokens(f) + estimateTokens(raw.get(f)) + Math.ceil(issueString(f).length / 4) + 2,
        }),
      });
      const findings = { items: view.listed.map((f) => raw.get(f)), capped: view.capped };
      return {
        success: true,
        passed: report.results.length === 0,
        command,
        findings: findings.items,
        finding_count: report.results.length,
        summary: banditSummary(report),
        issues: view.issues,
        common_findings: view.listed,
        unscanned_files: report.errors.map((e) => e.filename),
        returncode: run.returncode,
        truncated: run.truncated || findings.capped,
        ...listingFields("bandit", view, { lists: ["findings", "issues", "common_findings"] }),
        notes,
        ...(await sarifField(ctx, args.output, display, [
          {
            tool: "bandit",
            version: () => Promise.resolve(version),
            findings: view.all,
            notes: [...notes],
            command,
          },
        ])),
      };
    },
  });
