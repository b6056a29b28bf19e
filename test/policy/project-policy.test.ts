/**
 * The project policy file cannot turn a shipped policy off by text tricks, and a running server follows it:
 * - CEL injection: an `also_when` is an expression of its own (parsed, type-checked, ORed as a compiled
 *   function), so `false) ? false : (false` is a syntax error, not a way to switch hooks.no_verify off;
 * - overriding a shipped policy's message or advice is loosening (refused without the operator's flag);
 * - after an edit of .mcp-code-quality/policy.yaml the running server answers from the new bundle, with the
 *   same hash as the hook at that moment; a broken edit fails the call (nothing is allowed by it).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO_ROOT, connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

function project(policyYaml?: string): string {
  const dir = fs.realpathSync(tempDir("mcq-project-policy-"));
  fs.mkdirSync(path.join(dir, ".mcp-code-quality"));
  if (policyYaml !== undefined)
    fs.writeFileSync(path.join(dir, ".mcp-code-quality", "policy.yaml"), policyYaml);
  return dir;
}

function compile(dir: string, extra: string[] = []) {
  return spawnSync(process.execPath, [CLI, "policy", "compile", "--project", dir, ...extra], {
    encoding: "utf8",
    timeout: 120_000,
  });
}

/** The Claude Code hook's decision and the bundle hash its reason names. */
function hook(dir: string, command: string): { decision: string; hash?: string } {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, "dist", "hook.js"), "claude-code"], {
    input: JSON.stringify({ tool_name: "Bash", cwd: dir, tool_input: { command } }),
    env: { ...process.env, CLAUDE_PROJECT_DIR: dir },
    encoding: "utf8",
    timeout: 60_000,
  });
  if (r.stdout.trim() === "") return { decision: "allow" };
  const out = JSON.parse(r.stdout).hookSpecificOutput;
  return {
    decision: out.permissionDecision,
    hash: /\((sha256:[0-9a-f]{16})\)/.exec(out.permissionDecisionReason)?.[1],
  };
}

describe("CEL injection through also_when", () => {
  it("a condition fragment that closes the shipped one is a syntax error, and the policy stays on", () => {
    const dir = project(
      ["overrides:", "  - id: hooks.no_verify", '    also_when: "false) ? false : (false"', ""].join("\n"),
    );
    const r = compile(dir);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/policy\.yaml:\d+: policy hooks\.no_verify: also_when: /);
    // The hook refuses to answer from a bundle it cannot compile: it denies.
    expect(hook(dir, "git commit --no-verify -m x").decision).toBe("deny");
    expect(hook(dir, "git status").decision).toBe("deny");
  });

  it("a real also_when only adds matches: ORed with the shipped condition as a compiled function", () => {
    const dir = project(
      [
        "overrides:",
        "  - id: hooks.no_verify",
        '    also_when: program == "make" && "deploy" in operands',
        "",
      ].join("\n"),
    );
    expect(compile(dir).status).toBe(0);
    expect(hook(dir, "make deploy").decision).toBe("deny");
    expect(hook(dir, "git commit -n -m x").decision).toBe("deny");
    expect(hook(dir, "make test").decision).toBe("allow");
  });
});

describe("what an agent is told is part of the guard", () => {
  for (const field of ["advice", "message"] as const) {
    it(`overriding a shipped policy's ${field} is loosening`, () => {
      const dir = project(
        ["overrides:", "  - id: hooks.no_verify", `    ${field}: Commit with --no-verif instead.`, ""].join(
          "\n",
        ),
      );
      const r = compile(dir);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(`override of shipped policy hooks.no_verify replaces its ${field}`);
      expect(compile(dir, ["--policy-allow-loosening"]).status).toBe(0);
    });
  }
});

describe("a running server follows the project's policy file", () => {
  it("answers from the new bundle after an edit, with the hook's hash; a broken edit fails the call", async () => {
    const dir = project();
    const server = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const first = await server.call("policy_check_command", { command: "make clean" });
      expect(first.status).toBe("allowed");
      fs.writeFileSync(
        path.join(dir, ".mcp-code-quality", "policy.yaml"),
        [
          "policies:",
          "  - id: project.no_make_clean",
          "    principle: irreversible-needs-a-human",
          "    severity: warn",
          "    confirm: true",
          "    applies_to: command",
          '    condition: program == "make" && "clean" in operands',
          "    message: make clean wipes the data cache.",
          "    advice: Remove only what you need.",
          "",
        ].join("\n"),
      );
      const second = await server.call("policy_check_command", { command: "make clean" });
      expect(second.status).toBe("warn");
      expect(second.bundle_hash).not.toBe(first.bundle_hash);
      const fromHook = hook(dir, "make clean");
      expect(fromHook).toEqual({ decision: "ask", hash: second.bundle_hash });
      const explained = await server.call("policy_explain", { policy_id: "project.no_make_clean" });
      expect(explained.bundle_hash).toBe(second.bundle_hash);

      fs.writeFileSync(path.join(dir, ".mcp-code-quality", "policy.yaml"), "policies: [oops\n");
      const broken = await server.call("policy_check_command", { command: "make clean" });
      expect(broken.success).toBe(false);
      expect(broken.error_type).toBe("tool_error");
      expect(String(broken.error)).toContain("no longer compiles");

      fs.rmSync(path.join(dir, ".mcp-code-quality", "policy.yaml"));
      const back = await server.call("policy_check_command", { command: "make clean" });
      expect(back.status).toBe("allowed");
      expect(back.bundle_hash).toBe(first.bundle_hash);
    } finally {
      await server.close();
    }
  });
});
