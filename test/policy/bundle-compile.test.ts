/**
 * Compiling bundles: the default bundle compiles with every example verified; a broken CEL condition
 * fails with its file and line (in `policy compile` and at server start); a project file may add and
 * tighten, but loosening a shipped policy is refused unless the operator's flag is given.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { preToolUseDecision } from "../helpers/hook-answer.js";
import { CLI, REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

function cli(args: string[], options: { cwd?: string; input?: string; env?: Record<string, string> } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    input: options.input,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, ...options.env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function projectWith(policyYaml: string): string {
  const dir = tempDir("mcq-project-policy-");
  fs.mkdirSync(path.join(dir, ".mcp-code-quality"));
  fs.writeFileSync(path.join(dir, ".mcp-code-quality", "policy.yaml"), policyYaml);
  return dir;
}

const hookPayload = (command: string, cwd: string) =>
  JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", cwd, tool_input: { command } });

describe("policy compile", () => {
  it("compiles the default bundle, verifying every example, and writes it with its hash", () => {
    const dir = tempDir("mcq-compile-");
    const out = path.join(dir, "bundle.json");
    const r = cli(["policy", "compile", "--project", dir, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const written = JSON.parse(fs.readFileSync(out, "utf8")) as {
      bundle_hash: string;
      policies: { id: string }[];
    };
    expect(written.bundle_hash).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(r.stdout).toContain(written.bundle_hash);
    expect(written.policies.map((p) => p.id)).toContain("hooks.no_verify");
  });

  it("a broken CEL condition fails with its file and line", () => {
    const source = tempDir("mcq-broken-src-");
    fs.cpSync(path.join(REPO_ROOT, "policy"), source, { recursive: true });
    const file = path.join(source, "policies.yaml");
    const text = fs.readFileSync(file, "utf8");
    const broken = text.replace(
      'program == "git" &&\n  (subcommand in ["commit"',
      'program == 1 &&\n  (subcommand in ["commit"',
    );
    const target = broken !== text ? broken : text.replace('program == "git" &&', "program == 1 &&");
    fs.writeFileSync(file, target);
    const line = target.split("\n").findIndex((l) => l.includes("program == 1 &&")) + 1;
    const r = cli(["policy", "compile", "--source", source, "--out", path.join(source, "out.json")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:${line}: policy hooks.no_verify: condition: no such overload`);
    expect(fs.existsSync(path.join(source, "out.json"))).toBe(false);
  });

  it("a project policy with a broken condition stops the server with file, line and reason", () => {
    const project = projectWith(
      [
        "principles:",
        "  - { id: no-print, title: No print, summary: Use the logger. }",
        "policies:",
        "  - id: project.no_print",
        "    principle: no-print",
        "    severity: warn",
        "    applies_to: command",
        "    condition: >-",
        '      program == "python" &&',
        "      args.exists(a, a.contains(print))",
        "    message: m",
        "    advice: a",
        "",
      ].join("\n"),
    );
    const r = cli(["--mode", "standalone", "--port", "0", "--allowed-paths", project, "--log-level", "warn"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("invalid policy bundle");
    expect(r.stderr).toContain(
      `${path.join(project, ".mcp-code-quality", "policy.yaml")}:10: policy project.no_print: condition: Unknown variable: print`,
    );
  });
});

describe("project policies", () => {
  const loosen = "overrides:\n  - id: hooks.no_verify\n    severity: warn\n";

  it("loosening a shipped policy is refused without the operator's flag", () => {
    const project = projectWith(loosen);
    const r = cli(["policy", "compile", "--project", project]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "policy.yaml:2: override of shipped policy hooks.no_verify lowers its severity from block to warn",
    );
    expect(r.stderr).toContain("--policy-allow-loosening");
    // The hook refuses to run on a refused bundle: it denies, it does not fail open.
    const hook = cli(["hook", "claude-code"], {
      input: hookPayload("ls", project),
      env: { CLAUDE_PROJECT_DIR: project },
    });
    expect(hook.code).toBe(0);
    expect(JSON.parse(hook.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: "deny" });
    expect(JSON.parse(hook.stdout).hookSpecificOutput.permissionDecisionReason).toContain(
      "loosening a shipped policy is refused",
    );
    const server = cli([
      "--mode",
      "standalone",
      "--port",
      "0",
      "--allowed-paths",
      project,
      "--log-level",
      "warn",
    ]);
    expect(server.code).toBe(2);
    expect(server.stderr).toContain("loosening a shipped policy is refused");
  });

  it("with the operator's flag the loosened policy applies", () => {
    const project = projectWith(loosen);
    const hook = cli(["hook", "claude-code"], {
      input: hookPayload("git commit --no-verify -m x", project),
      env: { CLAUDE_PROJECT_DIR: project, MCP_CODE_QUALITY_POLICY_ALLOW_LOOSENING: "true" },
    });
    // Lowered to a warn (not marked confirm): advice the model reads, no longer a denial.
    expect(preToolUseDecision(hook.stdout)).toBe("advise");
  });

  it("a project adds policies and tightens shipped ones", () => {
    const project = projectWith(
      [
        "overrides:",
        "  - id: tooling.raw_linter",
        "    severity: block",
        "  - id: destructive.rm_root_home_project",
        '    also_when: program == "rm" && operands.exists(o, o.startsWith("data/"))',
        "policies:",
        "  - id: project.no_make_clean",
        "    principle: irreversible-needs-a-human",
        "    severity: warn",
        "    confirm: true",
        "    applies_to: command",
        '    condition: program == "make" && "clean" in operands',
        "    message: make clean wipes the local data cache.",
        "    advice: Remove only what you need.",
        "    examples: { match: [make clean], no_match: [make build] }",
        "  - id: project.prefer_make_check",
        "    principle: irreversible-needs-a-human",
        "    severity: warn",
        "    applies_to: command",
        '    condition: program == "make" && "lint" in operands',
        "    message: make lint is the old target.",
        "    advice: Run make check.",
        "",
      ].join("\n"),
    );
    expect(cli(["policy", "compile", "--project", project]).code).toBe(0);
    const decide = (command: string) => {
      const out = cli(["hook", "claude-code"], {
        input: hookPayload(command, project),
        env: { CLAUDE_PROJECT_DIR: project },
      }).stdout;
      return preToolUseDecision(out);
    };
    expect(decide("ruff check .")).toBe("deny");
    expect(decide("rm data/cache.db")).toBe("deny");
    // A warn marked confirm asks the human; any other warn is advice the model reads (the call goes on).
    expect(decide("make clean")).toBe("ask");
    expect(decide("make lint")).toBe("advise");
    expect(decide("make build")).toBe("allow");
  });
});
