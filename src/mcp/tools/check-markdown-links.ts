import path from "node:path";
import { z } from "zod";
import { checkMarkdownLinks } from "../../adapters/markdown/checker.js";
import { ToolError } from "../../errors.js";
import { capList } from "../../engine/result.js";
import { defineTool } from "../../engine/tool.js";
import { displayPaths } from "../../findings/display-path.js";
import type { Finding } from "../../findings/model.js";
import { findingsView } from "../../findings/views.js";
import { VERSION } from "../../version.js";
import { OUTPUT_ARG, sarifField } from "./sarif-output.js";

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Compiles `ignore_patterns`; a bad one is invalid_input naming it. */
export function compileIgnorePatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((p, i) => {
    if (CONTROL_CHARACTERS.test(p))
      throw new ToolError("invalid_input", `ignore_patterns[${i}] contains control characters`);
    try {
      return new RegExp(p);
    } catch (err) {
      throw new ToolError(
        "invalid_input",
        `ignore_patterns[${i}] is not a valid regular expression: ${(err as Error).message}`,
      );
    }
  });
}

/** Checks `exclude` globs for control characters (they are matched, never run). */
export function checkExcludePatterns(patterns: readonly string[]): void {
  patterns.forEach((p, i) => {
    if (CONTROL_CHARACTERS.test(p))
      throw new ToolError("invalid_input", `exclude[${i}] contains control characters`);
    if (p.trim() === "") throw new ToolError("invalid_input", `exclude[${i}] is empty`);
  });
}

/**
 * The checker's broken-link records as findings: one per line a broken link is on (rule `broken-link`),
 * and one per unreadable file (rule `unreadable-file`, the whole file). Record files are relative to `root`.
 */
export function brokenLinkFindings(
  records: readonly ({ file: string; error: string } & { url?: string; lines?: number[] })[],
  root: string,
): Finding[] {
  return records.flatMap((r) => {
    const file = path.resolve(root, r.file);
    if (!r.lines || r.url === undefined)
      return [
        {
          tool: "markdown-links",
          file,
          line: 0,
          column: 0,
          rule_id: "unreadable-file",
          severity: "error" as const,
          message: r.error,
        },
      ];
    return r.lines.map((line) => ({
      tool: "markdown-links",
      file,
      line,
      column: 0,
      rule_id: "broken-link",
      severity: "error" as const,
      message: `${r.url}: ${r.error}`,
    }));
  });
}

export const checkMarkdownLinksTool = () =>
  defineTool({
    name: "check_markdown_links",
    description:
      "Check the links in Markdown files: relative links to files and directories, #anchors (GitHub heading " +
      "slugs, HTML ids, #L10 line anchors), reference links, images, HTML <a href>/<img src>, and, with " +
      "check_external, HTTP(S) URLs. Returns passed, files_checked, total_links, broken_links and broken: " +
      "{file, url, lines, error} per broken link ({file, error} for unreadable files).",
    input: z.strictObject({
      path: z.string().describe("Markdown file or directory to check (inside the allowed paths)"),
      check_external: z.boolean().default(true).describe("Also request HTTP(S) links"),
      timeout: z.number().int().min(1).max(120).default(10).describe("Seconds per external URL"),
      concurrent: z.number().int().min(1).max(64).default(10).describe("External requests at once"),
      ignore_patterns: z
        .array(z.string().max(1000))
        .max(200)
        .default([])
        .describe("Regular expressions; links matching any of them are not checked"),
      exclude: z
        .array(z.string().max(1000))
        .max(200)
        .default([])
        .describe("Gitignore-style globs of files to skip, relative to path (.gitignore is honoured too)"),
      skip_anchors: z.boolean().default(false).describe("Do not check #fragments"),
      output: OUTPUT_ARG,
    }),
    annotations: {
      title: "Check Markdown links",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    },
    paths: [{ arg: "path", kind: "any" }],
    async handler(args, ctx) {
      const ignorePatterns = compileIgnorePatterns(args.ignore_patterns);
      checkExcludePatterns(args.exclude);
      // In-process work still honours the server's per-run time limit.
      const deadline = AbortSignal.timeout(ctx.config.timeout * 1000);
      const signal = ctx.signal ? AbortSignal.any([ctx.signal, deadline]) : deadline;
      const display = displayPaths(args.path, ctx.allowlist.roots.effective);
      let report;
      try {
        report = await checkMarkdownLinks({
          target: args.path,
          allowlist: ctx.allowlist,
          checkExternal: args.check_external,
          timeoutMs: args.timeout * 1000,
          concurrent: args.concurrent,
          ignorePatterns,
          exclude: args.exclude,
          skipAnchors: args.skip_anchors,
          displayBase: display.root,
          signal,
        });
      } catch (err) {
        if (deadline.aborted)
          throw new ToolError("timeout", `check_markdown_links exceeded the ${ctx.config.timeout} s timeout`);
        throw err;
      }
      const broken = capList(report.broken);
      const notes = [...report.notes];
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
        broken_count: report.broken.length,
        truncated: broken.capped,
        notes,
        ...(args.output === "sarif"
          ? await sarifField(ctx, args.output, display, [
              {
                tool: "markdown-links",
                version: () => Promise.resolve(VERSION),
                findings: findingsView(brokenLinkFindings(report.broken, display.root), {
                  display,
                  fingerprints: true,
                }).all,
                notes,
              },
            ])
          : {}),
      };
    },
  });
