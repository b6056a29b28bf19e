/**
 * `check --github`: what a GitHub Actions job shows of a check (the repository's action.yml runs it):
 * - a job summary (Markdown appended to $GITHUB_STEP_SUMMARY): totals, each check's status, findings by rule
 *   and by file, and what was skipped and why;
 * - annotations (`::error file=…,line=…::…` workflow commands on stdout) for the findings on the lines the
 *   pull request or push changed (every finding when the event names no base), at most MAX_ANNOTATIONS;
 * - step outputs (`exit-code`, `findings`, `errors`, `warnings`, `notes`, `annotated`) in $GITHUB_OUTPUT.
 * The formatting is pure; the changed lines come from `git diff` between the event's base and head.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { linePosition } from "../findings/model.js";
import type { CheckOutcome, FindingRow, Level } from "./outcome.js";
import { failedRunShown, hasFailedRun, levelCounts, seconds } from "./report.js";
import { warningNotes, warningShown } from "./tool-warnings.js";
import { escapeHtml } from "./html-escape.js";
import { GIT_SAFE_ENV, safeGitArgs } from "../exec/git-safety.js";

/** GitHub shows at most 10 error annotations per step and 50 per job; a few more say there were more. */
export const MAX_ANNOTATIONS = 50;
/** Rows of the summary's tables: GitHub takes a step summary up to 1 MiB. */
export const MAX_SUMMARY_ROWS = 500;

/** A workflow command's message: `%`, CR and LF escaped as the runner reads them. */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A workflow command's property value: the message's escapes, and `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

const COMMAND: Record<Level, string> = { error: "error", warning: "warning", note: "notice" };

/** One annotation: `::error file=a.py,line=1,col=8,title=F401 (ruff)::message`. */
export function annotation(row: FindingRow, file: string): string {
  const props = [`file=${escapeProperty(file)}`];
  if (row.line) props.push(`line=${row.line}`);
  if (row.line && row.column) props.push(`col=${row.column}`);
  props.push(`title=${escapeProperty(`${row.rule_id} (${row.tool})`)}`);
  return `::${COMMAND[row.level]} ${props.join(",")}::${escapeData(row.message)}`;
}

/** Changed line numbers per file (repository-relative, forward slashes), from `git diff --unified=0`. */
export type ChangedLines = Map<string, Set<number>>;

/** The new-side lines each hunk adds or changes, per file, read from a unified diff with no context. */
export function parseChangedLines(diff: string): ChangedLines {
  const out: ChangedLines = new Map();
  let file: string | undefined;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++ ")) {
      const name = line.slice(4).trim();
      file = name === "/dev/null" ? undefined : name.replace(/^b\//, "");
      if (file && !out.has(file)) out.set(file, new Set());
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk && file) {
      const start = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      const lines = out.get(file) as Set<number>;
      for (let n = start; n < start + count; n++) lines.add(n);
    }
  }
  return out;
}

/** The base and head of the event: a pull request's, or a push's `before`/`after`. */
export function eventRange(event: unknown): { base: string; head: string } | undefined {
  const e = event as {
    pull_request?: { base?: { sha?: string }; head?: { sha?: string } };
    before?: string;
    after?: string;
  };
  const sha = (s: unknown) =>
    typeof s === "string" && /^[0-9a-f]{7,64}$/.test(s) && !/^0+$/.test(s) ? s : undefined;
  const prBase = sha(e.pull_request?.base?.sha);
  const prHead = sha(e.pull_request?.head?.sha);
  if (prBase && prHead) return { base: prBase, head: prHead };
  const before = sha(e.before);
  const after = sha(e.after);
  if (before && after) return { base: before, head: after };
  return undefined;
}

export interface GithubInput {
  outcomes: readonly CheckOutcome[];
  elapsedMs: number;
  exitCode: number;
  /** The working directory: finding files are relative to it. */
  cwd: string;
  /** The repository's root (GITHUB_WORKSPACE): annotation files are relative to it. */
  workspace: string;
  /** The lines the event changed, or undefined to annotate every finding. */
  changed?: ChangedLines;
  sarif?: string;
}

/** A finding's file relative to the repository root, with forward slashes (as annotations and diffs name it). */
function repoFile(row: FindingRow, cwd: string, workspace: string): string {
  if (!row.file) return "";
  const absolute = path.resolve(cwd, row.file);
  const rel = path.relative(workspace, absolute);
  return (rel.startsWith("..") || path.isAbsolute(rel) ? absolute : rel).split(path.sep).join("/");
}

/** The annotations to print and how many findings were on changed lines. */
export function annotations(input: GithubInput): { lines: string[]; matched: number } {
  const lines: string[] = [];
  let matched = 0;
  for (const o of input.outcomes)
    for (const row of o.findings) {
      const file = repoFile(row, input.cwd, input.workspace);
      if (!file) continue;
      if (input.changed && !input.changed.get(file)?.has(row.line)) continue;
      matched++;
      if (lines.length < MAX_ANNOTATIONS) lines.push(annotation(row, file));
    }
  if (matched > MAX_ANNOTATIONS)
    lines.push(
      `::notice title=mcp-code-quality::${matched - MAX_ANNOTATIONS} more findings on ${input.changed ? "changed lines " : ""}are not annotated (GitHub shows at most 50 annotations per job); the job summary lists them`,
    );
  return { lines, matched };
}

/** A Markdown table cell: one line, pipes escaped, bounded. */
function cell(text: string, max = 200): string {
  const one = text.split("\n")[0]?.trim() ?? "";
  const cut = one.length > max ? `${one.slice(0, max - 1)}…` : one;
  return cut.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/</g, "&lt;");
}

/** A failed check's run (failedRunShown) folded under its line of the summary: HTML, escaped. */
function failedRunDetails(o: CheckOutcome): string[] {
  if (!hasFailedRun(o)) return [];
  const shown = failedRunShown(o);
  const text = [...(shown.left.length ? [`… ${shown.left.join("; ")}`] : []), ...shown.lines].join("\n");
  return [
    `  <details><summary>${escapeHtml(shown.head)}</summary>`,
    "",
    `  <pre>${escapeHtml(text)}</pre>`,
    "  </details>",
  ];
}

const STATUS: Record<CheckOutcome["status"], string> = {
  passed: "✅ passed",
  findings: "❌ findings",
  failed: "💥 failed",
  skipped: "⏭️ skipped",
  nothing: "➖ nothing to check",
};

/** The job summary, Markdown. */
export function summaryMarkdown(input: GithubInput, annotated: number): string {
  const rows = input.outcomes.flatMap((o) => o.findings);
  const counts: Record<Level, number> = { error: 0, warning: 0, note: 0 };
  for (const r of rows) counts[r.level]++;
  const files = new Set(rows.map((r) => r.file)).size;
  const failed = input.outcomes.filter((o) => o.status === "failed").length;
  const head =
    input.exitCode === 0
      ? "✅ no findings"
      : failed
        ? `💥 ${failed} check${failed === 1 ? "" : "s"} failed`
        : `❌ ${rows.length} finding${rows.length === 1 ? "" : "s"}${rows.length ? ` (${levelCounts(counts)}) in ${files} file${files === 1 ? "" : "s"}` : ""}`;
  const out: string[] = [
    `## mcp-code-quality check: ${head}`,
    "",
    `Exit code ${input.exitCode} · ${seconds(input.elapsedMs)}${input.sarif ? ` · SARIF: \`${cell(input.sarif)}\`` : ""}` +
      (input.changed
        ? ` · ${annotated} finding${annotated === 1 ? "" : "s"} on changed lines annotated`
        : ""),
    "",
    "| check | kind | language | status | findings | time |",
    "| --- | --- | --- | --- | --- | --- |",
    ...input.outcomes.map(
      (o) =>
        `| ${cell(o.id)} | ${o.kind} | ${o.language} | ${STATUS[o.status]} | ${o.findings.length ? levelCounts(o.counts) : "0"} | ${o.status === "skipped" || o.status === "nothing" ? "" : seconds(o.duration_ms)} |`,
    ),
  ];
  const notRun = input.outcomes.filter((o) => o.status === "skipped" || o.status === "failed");
  if (notRun.length)
    out.push(
      "",
      "### Skipped or failed, and why",
      "",
      ...notRun.flatMap((o) => [
        `- **${cell(o.id)}** (${o.kind}, ${o.language}): ${cell(o.reason ?? o.status, 500)}`,
        ...failedRunDetails(o),
      ]),
    );
  const warned = input.outcomes.flatMap((o) =>
    warningNotes(o.notes).map((n) => `- **${cell(o.id)}**: ${cell(warningShown(n), 500)}`),
  );
  if (warned.length) out.push("", "### Tool warnings", "", ...warned);
  if (rows.length) {
    const byRule = new Map<
      string,
      { tool: string; rule: string; level: Level; count: number; docs?: string }
    >();
    for (const r of rows) {
      const key = `${r.tool}\0${r.rule_id}`;
      const seen = byRule.get(key);
      if (seen) seen.count++;
      else byRule.set(key, { tool: r.tool, rule: r.rule_id, level: r.level, count: 1, docs: r.docs_url });
    }
    const rules = [...byRule.values()].sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule));
    out.push(
      "",
      "### Findings by rule",
      "",
      "| rule | tool | level | findings |",
      "| --- | --- | --- | --- |",
      ...rules
        .slice(0, MAX_SUMMARY_ROWS)
        .map(
          (r) =>
            `| ${r.docs ? `[${cell(r.rule)}](${r.docs})` : cell(r.rule)} | ${cell(r.tool)} | ${r.level} | ${r.count} |`,
        ),
    );
    if (rules.length > MAX_SUMMARY_ROWS) out.push("", `…and ${rules.length - MAX_SUMMARY_ROWS} more rules.`);
    const byFile = new Map<string, FindingRow[]>();
    for (const r of rows) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
    out.push("", "### Findings by file", "");
    let listed = 0;
    for (const [file, list] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
      if (listed >= MAX_SUMMARY_ROWS) break;
      list.sort((a, b) => a.line - b.line || a.column - b.column);
      out.push(
        `<details><summary><code>${cell(file || "(no file)")}</code>: ${list.length} finding${list.length === 1 ? "" : "s"}</summary>`,
        "",
        "| line | level | rule | message |",
        "| --- | --- | --- | --- |",
      );
      for (const r of list.slice(0, MAX_SUMMARY_ROWS - listed))
        out.push(
          `| ${r.line ? linePosition(r) : "-"} | ${r.level} | ${cell(r.rule_id)} | ${cell(r.message)} |`,
        );
      listed += list.length;
      out.push("", "</details>", "");
    }
    if (rows.length > MAX_SUMMARY_ROWS)
      out.push(
        `Only the first ${MAX_SUMMARY_ROWS} findings are listed here; the SARIF log has all ${rows.length}.`,
      );
  }
  return out.join("\n") + "\n";
}

/** `name=value` lines for $GITHUB_OUTPUT. */
export function outputLines(input: GithubInput, annotated: number): string {
  const rows = input.outcomes.flatMap((o) => o.findings);
  const count = (level: Level) => rows.filter((r) => r.level === level).length;
  return (
    [
      `exit-code=${input.exitCode}`,
      `findings=${rows.length}`,
      `errors=${count("error")}`,
      `warnings=${count("warning")}`,
      `notes=${count("note")}`,
      `annotated=${annotated}`,
      ...(input.sarif ? [`sarif=${input.sarif}`] : []),
    ].join("\n") + "\n"
  );
}

/** The lines the event changed, read with git in the workspace; undefined when it cannot say (annotate all). */
export function changedLinesOf(env: NodeJS.ProcessEnv, workspace: string): ChangedLines | undefined {
  if (!env.GITHUB_EVENT_PATH) return undefined;
  let range;
  try {
    range = eventRange(JSON.parse(fs.readFileSync(env.GITHUB_EVENT_PATH, "utf8")));
  } catch {
    return undefined;
  }
  if (!range) return undefined;
  try {
    // The repository's config names no program this git runs (git-safety.ts; textconv drivers off by flag).
    const diff = execFileSync(
      "git",
      safeGitArgs([
        "-c",
        "core.quotepath=off",
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--unified=0",
        range.base,
        range.head,
        "--",
      ]),
      {
        cwd: workspace,
        env: { ...process.env, ...GIT_SAFE_ENV },
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024,
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    return parseChangedLines(diff);
  } catch {
    // A shallow checkout without the base commit: every finding is annotated instead.
    return undefined;
  }
}

export interface GithubSinks {
  env: NodeJS.ProcessEnv;
  /** Where the workflow commands go (the runner reads them from stdout). */
  write(text: string): Promise<void>;
}

/** Writes the annotations, the job summary and the step outputs of a finished check. */
export async function reportToGithub(
  input: Omit<GithubInput, "changed" | "workspace">,
  sinks: GithubSinks,
): Promise<void> {
  const workspace = sinks.env.GITHUB_WORKSPACE ? path.resolve(sinks.env.GITHUB_WORKSPACE) : input.cwd;
  const full: GithubInput = { ...input, workspace, changed: changedLinesOf(sinks.env, workspace) };
  const { lines, matched } = annotations(full);
  if (lines.length) await sinks.write(lines.join("\n") + "\n");
  // Appended, as the runner expects: other steps write to the same files.
  if (sinks.env.GITHUB_STEP_SUMMARY)
    fs.appendFileSync(sinks.env.GITHUB_STEP_SUMMARY, summaryMarkdown(full, matched));
  if (sinks.env.GITHUB_OUTPUT) fs.appendFileSync(sinks.env.GITHUB_OUTPUT, outputLines(full, matched));
}
