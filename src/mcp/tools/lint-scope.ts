/**
 * Seed 003's agent arguments of `lint` and `lint_fix` (issue 16): their schema, their validation, and
 * their resolution into the LintOptions every adapter receives. What an adapter cannot do is refused
 * (inline code, scoped fixes) or done here over its findings (rule scope, changed files, per-rule cap).
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ToolError } from "../../errors.js";
import type { ToolContext } from "../../engine/tool.js";
import type { Finding } from "../../findings/model.js";
import { changedFiles } from "../../adapters/git-changed.js";
import type { LinterCapabilities, LintOptions, RuleScope } from "../../adapters/lint-options.js";
import { inRuleScope, matchesRule } from "../../adapters/rule-scope.js";
import { findRuleCatalog, resolveRuleScope } from "../../adapters/rule-catalogs.js";
import { isPathOf, type ProjectLanguage } from "../../adapters/project-languages.js";
import { fileFilter } from "./file-filter.js";
import { matchedFiles } from "./files-matched.js";

export { inRuleScope, matchesRule };

/** Inline code is held in memory and sent to a tool on stdin: 1 MiB is plenty for one file. */
export const MAX_SOURCE_CODE_CHARS = 1024 * 1024;

export const AGENT_ARGS = {
  source_code: z.string().max(MAX_SOURCE_CODE_CHARS).optional().describe("Inline code, as if at path"),
  only: z.array(z.string().min(1)).optional().describe("Rule ids or prefixes"),
  except: z.array(z.string().min(1)).optional().describe("Rule ids or prefixes to skip"),
  changed: z
    .union([z.boolean(), z.string().min(1)])
    .optional()
    .describe("Only git-changed: true or a revision"),
  max_per_rule: z.number().int().min(1).optional().describe("List at most N per rule"),
};

export interface AgentArgs {
  path: string;
  source_code?: string;
  only?: string[];
  except?: string[];
  changed?: boolean | string;
  max_per_rule?: number;
  files?: string[];
}

/** The name inline code gets in a directory, per language of the linter. */
const DEFAULT_NAMES: Record<string, string> = {
  python: "example.py",
  typescript: "example.ts",
  javascript: "example.js",
  ruby: "example.rb",
  rust: "example.rs",
  go: "example.go",
};

/** only/except that leave nothing of an `only` entry are a contradiction (invalid_input). */
export function checkRuleScope(
  only: string[] | undefined,
  except: string[] | undefined,
): RuleScope | undefined {
  if (!only?.length && !except?.length) return undefined;
  for (const o of only ?? []) {
    const dropping = except?.find((e) => matchesRule(o, e));
    if (dropping)
      throw new ToolError(
        "invalid_input",
        `only and except contradict each other: except "${dropping}" removes all of only "${o}"`,
      );
  }
  return { ...(only?.length ? { only } : {}), ...(except?.length ? { except } : {}) };
}

export interface ResolvedAgentArgs {
  options: LintOptions;
  notes: string[];
  /** `changed` resolved to nothing: there is nothing to check. */
  nothingChanged?: boolean;
}

/**
 * Validates the agent arguments against each other and against what the adapter can do, and resolves
 * them: the inline file's path, the rule scope, the changed files under path.
 */
export async function resolveAgentArgs(
  ctx: ToolContext,
  args: AgentArgs,
  linter: { name: string; languages: string[]; capabilities?: LinterCapabilities },
  opts: { fixing: boolean; takesFiles?: boolean },
): Promise<ResolvedAgentArgs> {
  const notes: string[] = [];
  const options: LintOptions = {};
  const caps = linter.capabilities;
  const exists = fs.existsSync(args.path);
  if (args.source_code !== undefined) {
    if (args.changed !== undefined && args.changed !== false)
      throw new ToolError(
        "invalid_input",
        "changed cannot be used with source_code (inline code has no git state)",
      );
    if (args.files?.length) throw new ToolError("invalid_input", "files cannot be used with source_code");
    if (!caps?.inlineSource)
      throw new ToolError(
        "invalid_input",
        `${linter.name} cannot check inline source_code; give a path instead`,
      );
    const isDir = exists && fs.statSync(args.path).isDirectory();
    const name = DEFAULT_NAMES[linter.languages[0] ?? ""] ?? "example.txt";
    options.source = { code: args.source_code, path: isDir ? path.join(args.path, name) : args.path };
  } else if (!exists) {
    throw new ToolError("path_validation", `path does not exist: ${args.path}`, {
      allowed_paths: ctx.allowlist.roots.effective,
    });
  }
  options.rules = checkRuleScope(args.only, args.except);
  // Names the linter does not know are refused before anything runs; groups stand for their rules.
  const catalog = options.rules && findRuleCatalog(linter.name);
  if (options.rules && catalog)
    options.rules = resolveRuleScope(
      linter.name,
      options.rules,
      await catalog(ctx, options.source?.path ?? args.path),
    );
  if (options.rules && opts.fixing && !caps?.ruleScope)
    throw new ToolError(
      "invalid_input",
      `${linter.name} cannot limit its fixes to rules: leave out only/except`,
    );
  if (args.changed !== undefined && args.changed !== false) {
    if (args.files?.length) throw new ToolError("invalid_input", "give files or changed, not both");
    const isFile = fs.statSync(args.path).isFile();
    const dir = isFile ? path.dirname(args.path) : args.path;
    const scope =
      args.changed === true
        ? ({ kind: "since", revision: "HEAD" } as const)
        : ({ kind: "since", revision: args.changed } as const);
    const files = (await changedFiles(ctx, dir, scope)).filter((f) => !isFile || f === args.path);
    options.changedFiles = files;
    notes.push(
      `changed: ${files.length} file(s) git says changed since ${scope.revision}${args.changed === true ? " (untracked included)" : ""}`,
    );
  }
  // A linter that does not take `files` itself is scoped here: the files they match (of its languages, a
  // script by its #! line as run by hand), none is invalid_input; it may narrow its run to them, and only
  // their findings are kept.
  if (args.files?.length && !opts.takesFiles && args.source_code === undefined) {
    const filter = fileFilter(ctx, args.path, args.files) as (file: string) => boolean;
    options.files = matchedFiles(
      args.path,
      (f) => filter(f) && linter.languages.some((l) => isPathOf(f, l as ProjectLanguage)),
      args.files,
      linter.name,
    );
  }
  if (args.max_per_rule !== undefined) options.maxPerRule = args.max_per_rule;
  return { options, notes, nothingChanged: options.changedFiles?.length === 0 };
}

/**
 * A call's `files` (relative to `from`, its path) as a run at `to` (a project below it, projects.ts) takes
 * them: plain paths and globs inside `to` relative to it, globs that match at any depth (starting with `**`)
 * as they are, the rest (outside `to`) left out. undefined when the call has no `files`; [] when none
 * reaches `to` (the run is not made).
 */
export function filesFrom(
  files: readonly string[] | undefined,
  from: string,
  to: string,
): string[] | undefined {
  if (!files || from === to) return files && [...files];
  const out: string[] = [];
  for (const f of files) {
    const posix = f.split(path.sep).join("/");
    if (posix.startsWith("**/")) {
      out.push(posix);
      continue;
    }
    const absolute = path.resolve(from, f);
    if (absolute === to || to.startsWith(absolute + path.sep)) out.push(".");
    else if (absolute.startsWith(to + path.sep))
      out.push(path.relative(to, absolute).split(path.sep).join("/"));
  }
  return out;
}

/** `changedFiles` as `files` relative to the target (glob characters escaped), for adapters that take files. */
export function changedAsFiles(target: string, changed: readonly string[]): string[] {
  return changed.map((f) =>
    path
      .relative(target, f)
      .split(path.sep)
      .join("/")
      .replace(/[*?[\]{}()!]/g, "\\$&"),
  );
}

/** Findings inside the rule scope, the changed files and the `files` matched (the tool layer applies them to any adapter). */
export function scopeFindings(findings: Finding[], options: LintOptions): Finding[] {
  const changed = options.changedFiles ? new Set(options.changedFiles) : undefined;
  const files = options.files ? new Set(options.files) : undefined;
  return findings.filter(
    (f) =>
      inRuleScope(f.rule_id, options.rules) &&
      (!changed || changed.has(f.file)) &&
      (!files || files.has(f.file)),
  );
}

/**
 * At most `max` findings per rule, in order; the others counted per rule. Without `max`, every finding.
 */
export function capPerRule<T extends { rule_id: string | null }>(
  items: readonly T[],
  max: number | undefined,
): { kept: T[]; unreported: Record<string, number> } {
  const unreported: Record<string, number> = {};
  if (max === undefined) return { kept: [...items], unreported };
  const seen = new Map<string, number>();
  const kept: T[] = [];
  for (const item of items) {
    const rule = item.rule_id ?? "";
    const n = (seen.get(rule) ?? 0) + 1;
    seen.set(rule, n);
    if (n <= max) kept.push(item);
    else unreported[rule] = (unreported[rule] ?? 0) + 1;
  }
  return { kept, unreported };
}

/** A finding as an offense in a result: where it is, what it says, and what a fix would do. */
export function offenseOf(f: Finding) {
  return {
    path: f.path ?? f.file,
    line: f.line,
    column: f.column,
    end_line: f.end_line,
    end_column: f.end_column,
    rule_id: f.rule_id,
    severity: f.severity,
    message: f.message,
    correctable: f.correctable ?? false,
    correction: f.correction,
    docs_url: f.docs_url,
  };
}
