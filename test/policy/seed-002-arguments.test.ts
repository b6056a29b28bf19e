/**
 * A client written for seed 002's coding-ethos server, unchanged but for the command that starts the server:
 * its argument names and shapes (lint_check's cwd/argv/scope/admin_approved/command, lint_advice's
 * code/file/line/column/severity, skill_recommend's intent and diagnostic object, sarif_trend_analysis's
 * baseline_sarif/current_sarif as JSON text, remediation_explain's remediation item and fields, the policy
 * checks' cwd and provider) are accepted through MCP and answer as our own names do.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

let s: Connected;
let project: string;

/** A result without what differs between two calls of the same work. */
const same = (r: Record<string, unknown>) => {
  const { duration_ms: _d, ...rest } = r;
  return rest;
};

beforeAll(async () => {
  project = tempDir("mcq-seed002-");
  fs.writeFileSync(path.join(project, "app.py"), "import os\n\n\ndef f():\n    return 1\n");
  s = await connectStdio({
    args: ["--allowed-paths", project],
    cwd: project,
    env: { PATH: `${TOOLS_VENV_BIN}:${process.env.PATH}`, VIRTUAL_ENV: undefined },
  });
});
afterAll(async () => s?.close());

describe("lint_check with seed 002's arguments", () => {
  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
    "cwd, scope files, argv and admin_approved answer as path, scope all and files",
    async () => {
      const seed = await s.call("lint_check", {
        tool: "ruff",
        cwd: project,
        scope: "files",
        argv: ["app.py"],
        admin_approved: true,
      });
      const ours = await s.call("lint_check", {
        tool: "ruff",
        path: project,
        scope: "all",
        files: ["app.py"],
      });
      expect(seed).toMatchObject({ success: true, passed: false, scope: "all", files: ["app.py"] });
      expect((seed.findings as { rule_id: string }[]).map((f) => f.rule_id)).toEqual(["F401"]);
      expect(same(seed)).toEqual(same(ours));
    },
  );

  it("command is judged against the policy: a blocked one fails the check", async () => {
    const r = await s.call("lint_check", {
      cwd: project,
      scope: "files",
      files: ["app.py"],
      tool: "ruff",
      command: "git commit --no-verify -m wip",
    });
    expect(r.passed).toBe(false);
    expect(r.command_check).toMatchObject({
      command: "git commit --no-verify -m wip",
      status: "blocked",
      violations: [expect.objectContaining({ policy_id: "hooks.no_verify" })],
    });
  });

  it("an option in argv, both cwd and path, or a wrong type is an InvalidParams error naming it", async () => {
    await expect(s.call("lint_check", { argv: ["--fix", "app.py"] })).rejects.toThrow(
      /argv \(seed 002\): --fix is an option/,
    );
    await expect(s.call("lint_check", { cwd: project, path: project })).rejects.toThrow(
      /give path or its seed 002 name cwd, not both/,
    );
    await expect(s.call("lint_check", { admin_approved: "yes" })).rejects.toThrow(
      /admin_approved \(seed 002\)/,
    );
  });
});

describe("lint_advice, skill_recommend, sarif_trend_analysis with seed 002's arguments", () => {
  it("lint_advice: code, file, line, column, severity answer as rule and path", async () => {
    const message = "`os` imported but unused";
    const seed = await s.call("lint_advice", {
      tool: "ruff",
      message,
      code: "F401",
      file: "app.py",
      line: 1,
      column: 8,
      severity: "error",
    });
    const ours = await s.call("lint_advice", { tool: "ruff", rule: "F401", message, path: "app.py" });
    expect(seed.success).toBe(true);
    expect(same(seed)).toEqual(same(ours));
    // The original required only tool and message.
    const bare = await s.call("lint_advice", { tool: "ruff", message });
    expect(bare).toMatchObject({ success: true, rerun: { tool: "lint" } });
  });

  it("skill_recommend: intent and a seed diagnostic object answer as task and ours", async () => {
    const seed = await s.call("skill_recommend", {
      intent: "refactor the import handling",
      command: "ruff check app.py",
      path: "app.py",
      diagnostic: {
        tool: "ruff",
        code: "F401",
        file: "app.py",
        message: "`os` imported but unused",
        severity: "error",
        line: 1,
        column: 8,
      },
      limit: 3,
    });
    const ours = await s.call("skill_recommend", {
      task: "refactor the import handling",
      command: "ruff check app.py",
      path: "app.py",
      diagnostic: { tool: "ruff", rule: "F401", message: "`os` imported but unused", path: "app.py" },
      limit: 3,
    });
    expect((seed.skills as unknown[]).length).toBeGreaterThan(0);
    expect(same(seed)).toEqual(same(ours));
  });

  it("sarif_trend_analysis: baseline_sarif and current_sarif, as JSON text, answer as baseline and current", async () => {
    const log = (lines: number[]) =>
      JSON.stringify({
        version: "2.1.0",
        runs: [
          {
            tool: { driver: { name: "ruff" } },
            results: lines.map((line) => ({
              ruleId: `E${line}`,
              level: "error",
              message: { text: `problem on line ${line}` },
              locations: [
                { physicalLocation: { artifactLocation: { uri: "app.py" }, region: { startLine: line } } },
              ],
            })),
          },
        ],
      });
    const seed = await s.call("sarif_trend_analysis", {
      baseline_sarif: log([1, 2]),
      current_sarif: log([2, 3]),
      history_sarif: [log([3])],
    });
    const ours = await s.call("sarif_trend_analysis", {
      baseline: log([1, 2]),
      current: log([2, 3]),
      history_sarif: [log([3])],
    });
    expect(seed.success).toBe(true);
    expect(same(seed)).toEqual(same(ours));
    await expect(
      s.call("sarif_trend_analysis", { baseline_sarif: log([1]), baseline: log([1]), current: log([1]) }),
    ).rejects.toThrow(/give baseline or its seed 002 name baseline_sarif, not both/);
  });
});

describe("remediation_explain and the policy checks with seed 002's arguments", () => {
  it("a remediation item (and its fields given alone) expands like our agent_remediation payload", async () => {
    const blocked = await s.call("policy_check_command", { command: "git commit --no-verify -m x" });
    const item = {
      id: "rem-0123456789abcdef",
      policy_id: "hooks.no_verify",
      skill_id: "hook-failures",
      message: "Skipping git hooks bypasses the checks the project relies on.",
      command: "git commit --no-verify -m x",
      failed_action: "git commit --no-verify -m x",
      severity: "block",
      next_steps: ["Run the command without --no-verify."],
    };
    const fromItem = await s.call("remediation_explain", { remediation: item });
    expect(fromItem).toMatchObject({
      success: true,
      message: item.message,
      action_context: { kind: "command", command: item.command, failed_action: item.failed_action },
      policies: [expect.objectContaining({ policy_id: "hooks.no_verify" })],
      skills: [expect.objectContaining({ skill_id: "hook-failures" })],
      bundle_hash: blocked.bundle_hash,
    });
    expect(fromItem.retry_guidance).toContain("Run the command without --no-verify.");
    // The same fields given as arguments of their own (the item's win where both are given).
    const fromFields = await s.call("remediation_explain", {
      policy_id: "hooks.no_verify",
      file: "app.py",
      line: 3,
      remediation: { skill_id: "hook-failures" },
    });
    expect(fromFields).toMatchObject({
      action_context: { kind: "edit", path: "app.py", line: 3 },
      policies: [expect.objectContaining({ policy_id: "hooks.no_verify" })],
      skills: [expect.objectContaining({ skill_id: "hook-failures" })],
    });
    await expect(s.call("remediation_explain", { tool: "ruff" })).rejects.toThrow(
      /needs a message, policy_id or skill_id/,
    );
  });

  it("policy_check_command and policy_check_edit take cwd and provider", async () => {
    const command = await s.call("policy_check_command", {
      command: "git push --force origin main",
      cwd: project,
      provider: "claude",
    });
    expect(command).toMatchObject({ success: true, status: "blocked" });
    const edit = await s.call("policy_check_edit", {
      path: "app.py",
      cwd: project,
      after: "import os  # noqa\n",
      provider: "codex",
    });
    expect(edit).toMatchObject({ success: true, path: "app.py" });
    expect((edit.violations as { policy_id: string }[]).map((v) => v.policy_id)).toContain("suppress.broad");
  });
});
