/** lint_check's policy lint: the edit policies about content over the selected files, as findings of tool "policy". */
import fs from "node:fs";
import path from "node:path";
import { type ToolContext } from "../../../engine/tool.js";
import type { Finding } from "../../../findings/model.js";
import type { DiagnosticAdvice } from "../../../policy/advisor.js";
import { policyRuntime } from "../policy/runtime.js";
import { policyLint, type PolicyLintFile } from "../../../policy/policy-lint.js";
import { gitOutput } from "../../../adapters/git-sandbox.js";

/** Which files a lint_check call lints: git's index, the changes since HEAD, or all. */
export type Scope = "staged" | "changed" | "all";

/** Bounds of the policy lint over a whole project (a changed-file scope lints what changed). */
const MAX_POLICY_FILES = 5000;

/** Changed files whose HEAD (and staged) versions are read one git call each; past it, judged by content. */
const MAX_POLICY_DIFFED = 200;

const MAX_POLICY_FILE_BYTES = 2 * 1024 * 1024;

/**
 * The compiled policy lint: the edit policies about content (broad suppressions, secrets, generated files
 * edited, weakened configs) over the selected files, as findings of tool "policy".
 */
export async function runPolicyLint(
  ctx: ToolContext,
  dir: string,
  scope: Scope,
  selected: string[] | undefined,
) {
  const runtime = await policyRuntime(ctx);
  const bundle = runtime.bundleFor(dir, ctx.allowlist);
  const root = ctx.allowlist.rootOf(dir) ?? dir;
  const notes: string[] = [];
  const git = (args: string[]) => gitOutput(ctx, dir, args);
  const top = (await git(["rev-parse", "--show-toplevel"]))?.[0];
  let targets = selected;
  if (!targets) {
    const listed = top
      ? await git(["ls-files", "--cached", "--others", "--exclude-standard", "--full-name", "--", "."])
      : undefined;
    targets = (listed ?? []).filter(Boolean).map((r) => path.resolve(top as string, r));
    if (!top) notes.push("policy lint: not a git work tree, so there is no file list to lint; give files");
  }
  if (targets.length > MAX_POLICY_FILES) {
    notes.push(`policy lint: ${targets.length} files, the first ${MAX_POLICY_FILES} were linted`);
    targets = targets.slice(0, MAX_POLICY_FILES);
  }
  const files: PolicyLintFile[] = [];
  for (const f of targets) {
    const st = fs.statSync(f, { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    if (st.size > MAX_POLICY_FILE_BYTES) {
      notes.push(
        `policy lint: ${path.relative(root, f)} is over ${MAX_POLICY_FILE_BYTES} bytes and was not linted`,
      );
      continue;
    }
    const rel = top ? path.relative(top, f).split(path.sep).join("/") : "";
    const show = async (spec: string) => {
      const lines = await git(["show", spec]);
      return lines === undefined ? undefined : lines.length ? `${lines.join("\n")}\n` : "";
    };
    let after = fs.readFileSync(f, "utf8");
    let before: string | undefined;
    if (top && scope !== "all" && files.length < MAX_POLICY_DIFFED) {
      before = (await show(`HEAD:${rel}`)) ?? "";
      if (scope === "staged") after = (await show(`:${rel}`)) ?? after;
    }
    if (after.slice(0, 8000).includes("\0")) continue; // binary
    files.push({
      absolute: f,
      path: path.relative(root, f).split(path.sep).join("/"),
      ...(before !== undefined ? { before } : {}),
      after,
    });
  }
  const found = await policyLint(bundle, files, ctx.allowlist.roots.effective);
  const findings: Finding[] = found.map((p) => ({
    tool: "policy",
    file: p.file,
    line: p.line,
    column: 1,
    rule_id: p.policy_id,
    severity: p.severity,
    message: p.message,
  }));
  const advice = (id: string): DiagnosticAdvice => {
    const policy = bundle.policy(id);
    const skill = policy?.skill ? bundle.skill(policy.skill) : undefined;
    return {
      bundle_hash: bundle.hash,
      mapped: policy !== undefined,
      policies: policy ? [bundle.ref(policy)] : [],
      skills: skill ? [bundle.skillRef(skill)] : [],
    };
  };
  return {
    findings,
    notes,
    advice,
    run: {
      linter: "policy",
      command: `compiled policy lint (${bundle.hash}) of ${files.length} file(s)`,
      returncode: findings.length ? 1 : 0,
      finding_count: findings.length,
    },
  };
}
