/**
 * Every policy check answers in bounded time while the server goes on answering (the review's stalls: a
 * replace_all Edit of a 2 MB package-lock.json kept the hook running 1,300 s; 8,000 changed lines froze the
 * server 22.7 s; `Code generated ` × 48,000 took 45.7 s; nested CEL macros 114 s; a backtracking matches()
 * 12.2 s). Each stall case runs beside another call (policy_explain), which must finish, and must itself come
 * back with a decision; a check past the deadline (MCP_CODE_QUALITY_POLICY_DEADLINE_MS) is undecided (warn),
 * and the Claude Code hook past its own (MCP_CODE_QUALITY_HOOK_DEADLINE_MS) answers ask. No time is asserted:
 * benchmarks measure speed.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

let project: string;
let server: Connected;
let lock: string;

const ids = (r: Record<string, unknown>) =>
  ((r.violations ?? []) as { policy_id: string }[]).map((v) => v.policy_id);

beforeAll(async () => {
  project = fs.realpathSync(tempDir("mcq-bounded-"));
  fs.mkdirSync(path.join(project, ".mcp-code-quality"));
  fs.writeFileSync(
    path.join(project, ".mcp-code-quality", "policy.yaml"),
    [
      "policies:",
      "  - id: project.nested",
      "    principle: keep-the-bar",
      "    severity: block",
      "    applies_to: edit",
      '    condition: path.startsWith("nested/") && added.exists(a, added.exists(b, added.exists(c, a + b + c == "never")))',
      "    message: nested macros over every added line",
      "    advice: none",
      "  - id: project.backtracking",
      "    principle: keep-the-bar",
      "    severity: block",
      "    applies_to: edit",
      '    condition: path.startsWith("bt/") && added.exists(l, l.matches(r"^(a+)+$"))',
      "    message: a pattern that backtracks exponentially in a backtracking engine",
      "    advice: none",
      "",
    ].join("\n"),
  );
  // A lock file of ~2 MB.
  const deps = Array.from(
    { length: 15_500 },
    (_, i) =>
      `    "node_modules/pkg-${i}": { "version": "1.0.${i}", "resolved": "https://registry.npmjs.org/pkg-${i}/-/pkg-${i}-1.0.${i}.tgz" },`,
  );
  lock = path.join(project, "package-lock.json");
  fs.writeFileSync(lock, `{\n  "lockfileVersion": 3,\n  "packages": {\n${deps.join("\n")}\n  }\n}\n`);
  server = await connectStdio({ args: ["--allowed-paths", project], cwd: project });
});
afterAll(async () => server?.close());

/** The stalling call and another call at the same time: both must come back. */
async function beside(call: Promise<Record<string, unknown>>) {
  const [stalled, other] = await Promise.all([
    call,
    server.call("policy_explain", { policy_id: "hooks.no_verify" }),
  ]);
  expect(other.success).toBe(true);
  expect(stalled.success, JSON.stringify(stalled)).toBe(true);
  return stalled;
}

describe("bounded policy checks, beside another call", () => {
  it("a replace_all edit of a 2 MB package-lock.json (server and hook)", async () => {
    const before = fs.readFileSync(lock, "utf8");
    expect(before.length).toBeGreaterThan(2_000_000);
    const r = await beside(
      server.call("policy_check_edit", {
        path: lock,
        diff: undefined,
        after: before.split('"1.0.').join('"2.0.'),
      }),
    );
    expect(r.status).toBe("blocked");
    expect(ids(r)).toContain("protected.lockfiles");
    const hook = spawnSync(process.execPath, [path.join(REPO_ROOT, "dist", "hook.js"), "claude-code"], {
      input: JSON.stringify({
        tool_name: "Edit",
        cwd: project,
        tool_input: { file_path: lock, old_string: '"1.0.', new_string: '"2.0.', replace_all: true },
      }),
      env: { ...process.env, CLAUDE_PROJECT_DIR: project },
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(hook.status).toBe(0);
    expect(JSON.parse(hook.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
  });

  it("8,000 changed lines", async () => {
    const before = Array.from({ length: 8000 }, (_, i) => `line_${i} = ${i}`).join("\n");
    const after = Array.from({ length: 8000 }, (_, i) => `line_${i} = ${i * 7}  # changed`).join("\n");
    const r = await beside(
      server.call("policy_check_edit", { path: path.join(project, "src", "values.py"), before, after }),
    );
    expect(r.status).toBe("allowed");
  });

  it("`Code generated ` × 48,000 in the file before the edit", async () => {
    const before = "Code generated ".repeat(48_000);
    const r = await beside(
      server.call("policy_check_edit", {
        path: path.join(project, "src", "gen.txt"),
        before,
        after: `${before}x`,
      }),
    );
    expect(r.status).toBe("allowed");
  });

  it("a project condition of nested macros goes over its budget: undecided, not allowed", async () => {
    const after = Array.from({ length: 2000 }, (_, i) => `v${i} = ${i}`).join("\n");
    const r = await beside(
      server.call("policy_check_edit", { path: path.join(project, "nested", "x.py"), after }),
    );
    expect(r.status).toBe("warn");
    expect(ids(r)).toContain("edit.undecidable");
    expect(JSON.stringify(r.violations)).toMatch(
      /project\.nested: the condition went over its evaluation budget/,
    );
  });

  it("a backtracking pattern runs in linear time (RE2)", async () => {
    const r = await beside(
      server.call("policy_check_edit", {
        path: path.join(project, "bt", "x.txt"),
        after: `${"a".repeat(50_000)}!\n`,
      }),
    );
    expect(r.status).toBe("allowed");
    const hit = await server.call("policy_check_edit", {
      path: path.join(project, "bt", "y.txt"),
      after: `${"a".repeat(50_000)}\n`,
    });
    expect(ids(hit)).toContain("project.backtracking");
  });
});

describe("deadlines", () => {
  it("a server check past MCP_CODE_QUALITY_POLICY_DEADLINE_MS is undecided (warn), and other calls answer", async () => {
    const hurried = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { MCP_CODE_QUALITY_POLICY_DEADLINE_MS: "1" },
    });
    try {
      const [r, other] = await Promise.all([
        hurried.call("policy_check_command", { command: "git commit --no-verify -m x" }),
        hurried.call("policy_explain", { policy_id: "hooks.no_verify" }),
      ]);
      expect(other.success).toBe(true);
      expect(r.status).toBe("warn");
      expect(ids(r)).toEqual(["command.undecidable"]);
      expect(JSON.stringify(r)).toMatch(/did not finish within 1 ms|ran past its deadline/);
    } finally {
      await hurried.close();
    }
  });

  it("the Claude Code hook past MCP_CODE_QUALITY_HOOK_DEADLINE_MS answers ask", () => {
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, "dist", "hook.js"), "claude-code"], {
      input: JSON.stringify({ tool_name: "Bash", cwd: project, tool_input: { command: "git status" } }),
      env: { ...process.env, CLAUDE_PROJECT_DIR: project, MCP_CODE_QUALITY_HOOK_DEADLINE_MS: "1" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout).hookSpecificOutput;
    expect(out.permissionDecision).toBe("ask");
    expect(out.permissionDecisionReason).toMatch(/within 1 ms|deadline/);
  });
});
