import path from "node:path";
import { z } from "zod";
import type { LinkRewrite } from "../../adapters/markdown/checker.js";
import { groupByLink } from "../../adapters/markdown/report.js";
import { findingsView } from "../../findings/views.js";
import { checkReplacement, compileUserRegex, type UserRegex } from "../../adapters/markdown/user-regex.js";
import { ToolError } from "../../errors.js";
import { defineTool, READ_ONLY_NETWORK } from "../../engine/tool.js";
import { loadProjectConfig, type MarkdownLinksSettings } from "../../project-config/index.js";
import { displayPaths } from "../../findings/display-path.js";
import type { Finding } from "../../findings/model.js";
import { summaryText } from "../../findings/summary-text.js";
import { listEntries, pageFields, PAGING_ARGS } from "./listing.js";
import { VERSION } from "../../version.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";
import { cacheFields, resultCacheOf } from "../../cache/service.js";

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Defaults for what neither the call nor the project config sets. */
const DEFAULTS = {
  check_external: true,
  timeout: 10,
  concurrent: 10,
  ignore_patterns: [] as string[],
  exclude: [] as string[],
  rewrite: [] as { pattern: string; replacement: string }[],
  skip_anchors: false,
  anchor_case_sensitive: false,
  github_links_on_disk: true,
};

/** Compiles `ignore_patterns` in the linear-time engine; a bad one is invalid_input naming it. */
export function compileIgnorePatterns(patterns: readonly string[], label = "ignore_patterns"): UserRegex[] {
  return patterns.map((p, i) => compileUserRegex(p, `${label}[${i}]`));
}

/** Compiles `rewrite` rules; a bad pattern or a replacement naming a missing group is invalid_input. */
export function compileRewrites(
  rules: readonly { pattern: string; replacement: string }[],
  label = "rewrite",
): LinkRewrite[] {
  return rules.map((r, i) => {
    const pattern = compileUserRegex(r.pattern, `${label}[${i}].pattern`);
    if (CONTROL_CHARACTERS.test(r.replacement))
      throw new ToolError("invalid_input", `${label}[${i}].replacement contains control characters`);
    checkReplacement(r.pattern, r.replacement, `${label}[${i}].replacement`);
    return { pattern, replacement: r.replacement };
  });
}

/** Checks `exclude` globs for control characters (they are matched, never run). */
export function checkExcludePatterns(patterns: readonly string[], label = "exclude"): void {
  patterns.forEach((p, i) => {
    if (CONTROL_CHARACTERS.test(p))
      throw new ToolError("invalid_input", `${label}[${i}] contains control characters`);
    if (p.trim() === "") throw new ToolError("invalid_input", `${label}[${i}] is empty`);
  });
}

const pattern = z.string().max(1000);

/**
 * The checker's broken-link records as findings: one per broken link at its line and column (rule
 * `broken-link`), and one per unreadable file (rule `unreadable-file`, the whole file). Record files are
 * relative to `root`.
 */
export function brokenLinkFindings(
  records: readonly ({ file: string; error: string } & {
    url?: string;
    line?: number;
    column?: number;
    suggestion?: string;
  })[],
  root: string,
): Finding[] {
  return records.map((r) => {
    const file = path.resolve(root, r.file);
    if (r.line === undefined || r.url === undefined)
      return {
        tool: "markdown-links",
        file,
        line: 0,
        column: 0,
        rule_id: "unreadable-file",
        severity: "error" as const,
        message: r.error,
      };
    return {
      tool: "markdown-links",
      file,
      line: r.line,
      column: r.column ?? 0,
      rule_id: "broken-link",
      severity: "error" as const,
      // The checker's nearest anchor or file, as check_markdown_links gives it: check shows it too.
      message: `${r.url}: ${r.error}${r.suggestion ? ` (did you mean ${r.suggestion}?)` : ""}`,
    };
  });
}

export const checkMarkdownLinksTool = () =>
  defineTool({
    name: "check_markdown_links",
    description: "Check Markdown links (files, anchors, references, URLs): each broken one with its lines.",
    input: z.strictObject({
      path: z.string().describe("Markdown file or folder, relative to cwd"),
      check_external: z.boolean().optional().describe("Request URLs too (default true)"),
      timeout: z.number().int().min(1).max(120).optional().describe("Seconds per URL (default 10)"),
      concurrent: z.number().int().min(1).max(64).optional().describe("Requests at once (default 10)"),
      ignore_patterns: z.array(pattern).max(200).optional().describe("RE2 patterns of links to skip"),
      exclude: z.array(pattern).max(200).optional().describe("Gitignore globs of files to skip"),
      rewrite: z
        .array(z.strictObject({ pattern, replacement: z.string().max(1000) }))
        .max(100)
        .optional()
        .describe("RE2 rewrites applied to links first"),
      skip_anchors: z.boolean().optional().describe("Do not check #fragments"),
      anchor_case_sensitive: z.boolean().optional().describe("Anchors must match case"),
      github_links_on_disk: z.boolean().optional().describe("github.com links to this repo, on disk"),
      output: OUTPUT_ARG,
      ...PAGING_ARGS,
    }),
    annotations: { title: "Check Markdown links", ...READ_ONLY_NETWORK },
    paths: [{ arg: "path", kind: "any" }],
    async handler(args, ctx) {
      const project = loadProjectConfig(args.path, ctx.allowlist);
      const shownConfig = project.file && path.relative(ctx.config.cwd, project.file);
      const fromFile: MarkdownLinksSettings = project.config.markdown_links ?? {};
      const pick = <K extends keyof typeof DEFAULTS>(key: K): (typeof DEFAULTS)[K] =>
        (args[key] ?? fromFile[key] ?? DEFAULTS[key]) as (typeof DEFAULTS)[K];
      const source = (key: keyof typeof DEFAULTS) =>
        args[key] === undefined && fromFile[key] !== undefined
          ? `${shownConfig}: markdown_links.${key}`
          : key;
      const ignorePatterns = compileIgnorePatterns(pick("ignore_patterns"), source("ignore_patterns"));
      const rewrites = compileRewrites(pick("rewrite"), source("rewrite"));
      checkExcludePatterns(pick("exclude"), source("exclude"));
      // In-process work still honours the server's per-run time limit.
      const deadline = AbortSignal.timeout(ctx.config.timeout * 1000);
      const signal = ctx.signal ? AbortSignal.any([ctx.signal, deadline]) : deadline;
      const display = displayPaths(args.path, ctx.allowlist.roots.effective);
      let report;
      try {
        // The Markdown and HTML parsers (about 80 modules) are loaded by the first check, not at start.
        const { checkMarkdownLinks } = await import("../../adapters/markdown/checker.js");
        report = await checkMarkdownLinks({
          target: args.path,
          allowlist: ctx.allowlist,
          checkExternal: pick("check_external"),
          timeoutMs: pick("timeout") * 1000,
          concurrent: pick("concurrent"),
          ignorePatterns,
          rewrites,
          exclude: pick("exclude"),
          skipAnchors: pick("skip_anchors"),
          caseSensitive: pick("anchor_case_sensitive"),
          githubLinksOnDisk: pick("github_links_on_disk"),
          allowPrivateLinks: ctx.config.allowPrivateLinks,
          displayBase: display.root,
          readRoots: ctx.config.linkReadRoots,
          analyses: resultCacheOf(ctx),
          signal,
          // Units: the files, and one more for what follows them (anchors elsewhere, external links).
          onProgress: (done, total, pending) =>
            ctx.progress?.({
              done,
              total: total === undefined ? undefined : total + 1,
              message: pending
                ? `${done} of ${done} file(s) checked; then ${pending}`
                : `${done}${total === undefined ? "" : ` of ${total}`} file(s) checked`,
            }),
        });
      } catch (err) {
        if (deadline.aborted)
          throw new ToolError("timeout", `check_markdown_links exceeded the ${ctx.config.timeout} s timeout`);
        throw err;
      }
      // Seed 000: each broken link once (every line it is on), listed within the budget through a finding at
      // its first occurrence; SARIF and the counts get every occurrence.
      const findings = brokenLinkFindings(report.broken, display.root);
      const entries = groupByLink(report.broken);
      const broken = listEntries(ctx, args, entries, brokenLinkFindings(entries, display.root), { display });
      const notes = [...report.notes];
      if (project.file) notes.push(`project settings read from ${shownConfig}`);
      if (report.filesChecked === 0 && report.broken.length === 0) notes.push("no Markdown files found");
      return {
        success: true,
        passed: report.broken.length === 0,
        files_checked: report.filesChecked,
        total_links: report.totalLinks,
        broken_links: report.brokenLinks,
        skipped_links: report.skippedLinks,
        external_urls_checked: report.externalUrls,
        broken: broken.items,
        broken_count: entries.length,
        truncated: broken.view.capped,
        ...pageFields(broken.view, { lists: ["broken"] }),
        summary_text: summaryText("markdown-links", findings),
        ...cacheFields(report.analysesCached),
        notes,
        ...(args.output === "sarif"
          ? await sarifField(ctx, args.output, display, [
              {
                tool: "markdown-links",
                version: () => Promise.resolve(VERSION),
                findings: findingsView(findings, { display, fingerprints: true }).all,
                notes,
              },
            ])
          : {}),
      };
    },
  });
