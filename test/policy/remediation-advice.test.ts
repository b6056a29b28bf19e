/**
 * remediation_advice against stand-in provider executables this test writes (a claude that answers well,
 * badly, hangs, or floods), refused requests, local mode and the traces every request leaves; lint_advice
 * mapped through a real advisor built from a fixture. One in-process server, reached over MCP.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectInProcess, type InProcess } from "../helpers/in-process.js";
import { FixtureAdvisor } from "../helpers/fixture-advisor.js";
import { FIXTURES } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { POLICY_ADVISOR_SERVICE } from "../../src/policy/advisor.js";
import { loadConfig } from "../../src/config.js";
import { configuredProvider } from "../../src/policy/advice/run-provider.js";
import { PROVIDERS } from "../../src/policy/advice/providers.js";
import { parseAdviceReply } from "../../src/policy/advice/reply.js";

const ADVICE = {
  summary: "os is imported and never used.",
  policy_ids: ["python.unused_imports"],
  principle_ids: ["no-dead-code"],
  skill_ids: ["unused-imports"],
  steps: ["Delete `import os` from app.py."],
  rerun: { tool: "lint_check", arguments: { tool: "ruff", files: ["app.py"] } },
  risks: ["None: nothing re-exports os."],
};

/** A claude stand-in: records its argv, then behaves as the MODE= marker in its prompt says. */
function standInClaude(dir: string): string {
  const file = path.join(dir, "claude");
  const script = `#!${process.execPath}
const fs = require("node:fs");
const { spawn } = require("node:child_process");
const argv = process.argv.slice(2);
fs.writeFileSync(${JSON.stringify(path.join(dir, "argv.json"))}, JSON.stringify(argv));
fs.writeFileSync(${JSON.stringify(path.join(dir, "env.json"))}, JSON.stringify(Object.keys(process.env)));
const prompt = argv[argv.length - 1];
const mode = /MODE=(\\w+)/.exec(prompt)?.[1];
const reply = (result) => process.stdout.write(JSON.stringify({ type: "result", subtype: "success", is_error: false, result }));
if (mode === "valid") reply("\`\`\`json\\n" + JSON.stringify(${JSON.stringify(ADVICE)}) + "\\n\`\`\`");
else if (mode === "malformed") reply("Sure! Just delete the import.");
else if (mode === "badrerun") reply(JSON.stringify({ ...${JSON.stringify(ADVICE)}, rerun: { tool: "bash", arguments: { command: "ruff check ." } } }));
else if (mode === "oversized") process.stdout.write("x".repeat(200000));
else if (mode === "noqa") reply(JSON.stringify({ ...${JSON.stringify(ADVICE)}, steps: ["Add \`import os  # noqa\` to keep it."] }));
else if (mode === "noverify") reply(JSON.stringify({ ...${JSON.stringify(ADVICE)}, steps: ["Delete it, then commit with \`git commit --no-verify -m fix\`."] }));
else if (mode === "noverif") reply(JSON.stringify({ ...${JSON.stringify(ADVICE)}, steps: ["If the hook complains, commit with --no-verif instead."] }));
else if (mode === "ignore") reply(JSON.stringify({ ...${JSON.stringify(ADVICE)}, steps: ["Ignore the F401 rule for this file."] }));
else if (mode === "unknownpolicy") reply(JSON.stringify({ ...${JSON.stringify(ADVICE)}, policy_ids: ["made.up_policy"] }));
else if (mode === "rollback") reply(JSON.stringify({ ...${JSON.stringify(ADVICE)}, rerun: { tool: "rollback", arguments: { path: "/", force: true } } }));
else if (mode === "otherfile") reply(JSON.stringify({ ...${JSON.stringify(ADVICE)}, rerun: { tool: "lint", arguments: { path: "/etc/passwd", linter: "ruff" } } }));
else if (mode === "hang") {
  const child = spawn("sleep", ["300"], { stdio: "ignore" });
  fs.writeFileSync(${JSON.stringify(path.join(dir, "pids.json"))}, JSON.stringify([process.pid, child.pid]));
  setInterval(() => {}, 1000);
} else process.exit(3);
`;
  fs.writeFileSync(file, script, { mode: 0o755 });
  return file;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let server: InProcess;
let project: string;
let bin: string;
let claude: string;

beforeAll(async () => {
  // The server's own secret: the provider must not inherit it.
  process.env.MCP_CODE_QUALITY_AUTH_TOKEN = "server-secret";
  project = tempDir("mcq-advice-project-");
  fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "shop"\n');
  fs.writeFileSync(path.join(project, "app.py"), "import os\nimport sys\n\nprint(sys.argv)\n");
  fs.writeFileSync(
    path.join(project, "big.py"),
    Array.from({ length: 60 }, (_, i) => `x${i} = "${"y".repeat(200)}"`).join("\n"),
  );
  bin = tempDir("mcq-advice-bin-");
  claude = standInClaude(bin);
  server = await connectInProcess({
    cwd: project,
    args: [
      // The stand-in records its argv, environment and pids in files beside itself, which the provider's
      // sandbox forbids by design: this file tests the provider protocol unsandboxed, and
      // test/sandbox/attacks.test.ts the provider's sandbox.
      "--sandbox",
      "off",
      "--toolsets",
      "core,policy",
      // More calls than remediation_advice's 10 a minute.
      "--rate-limit",
      "false",
      "--advice-provider",
      "claude",
      "--advice-provider-path",
      claude,
      "--advice-allow-network",
      "true",
      "--advice-timeout",
      "2",
      "--advice-max-input-bytes",
      "8192",
      "--advice-max-output-bytes",
      "65536",
    ],
    services: { [POLICY_ADVISOR_SERVICE]: new FixtureAdvisor(path.join(FIXTURES, "policy", "advisor.json")) },
  });
});

afterAll(async () => {
  delete process.env.MCP_CODE_QUALITY_AUTH_TOKEN;
  await server?.close();
});

const finding = (mode: string) => ({
  tool: "ruff",
  rule_id: "F401",
  message: `\`os\` imported but unused MODE=${mode}`,
  path: "app.py",
  line: 1,
  column: 8,
});

function readTrace(result: Record<string, unknown>) {
  const file = result.trace_file as string;
  expect(path.dirname(file)).toBe(path.join(project, ".mcp-cache", "advice-traces"));
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
}

describe("remediation_advice with a provider", () => {
  it("sends a structured prompt through claude's fixed argv and returns the parsed advice", async () => {
    const r = await server.call("remediation_advice", { finding: finding("valid") });
    expect(r).toMatchObject({ success: true, provider: "claude", mapped: true, ...ADVICE });
    expect(r.bundle_hash).toBe("sha256:fixture-advisor-1");
    const argv = JSON.parse(fs.readFileSync(path.join(bin, "argv.json"), "utf8")) as string[];
    expect(argv.slice(0, -1)).toEqual([
      "-p",
      "--output-format",
      "json",
      "--max-turns",
      "1",
      "--no-session-persistence",
      "--strict-mcp-config",
      "--tools",
      "",
      "--",
    ]);
    const env = JSON.parse(fs.readFileSync(path.join(bin, "env.json"), "utf8")) as string[];
    expect(env).toContain("PATH");
    expect(env).not.toContain("MCP_CODE_QUALITY_AUTH_TOKEN");
    const prompt = argv.at(-1) as string;
    // Structured data only: the policy, the skill steps, the snippet with its range, the rerun call.
    expect(prompt).toContain('"policy_id": "python.unused_imports"');
    expect(prompt).toContain("Check the name is not re-exported");
    expect(prompt).toContain('"start_line": 1');
    expect(prompt).toContain('"tool": "lint"');
    expect(prompt).not.toContain("big.py");
    const trace = readTrace(r);
    expect(trace).toMatchObject({
      request_id: r.request_id,
      provider: "claude",
      policy_ids: ["python.unused_imports"],
      principle_ids: ["no-dead-code"],
      skill_ids: ["unused-imports"],
      files: [{ path: "app.py", start_line: 1, end_line: 4 }],
      exit: { returncode: 0, timed_out: false },
      response: ADVICE,
      failures: [],
    });
  });

  it("fails with the parse error when the reply is not the advice schema, and traces it", async () => {
    const r = await server.call("remediation_advice", { finding: finding("malformed") });
    expect(r).toMatchObject({ success: false, error_type: "tool_error" });
    expect(r.error).toMatch(/^claude: reply is not JSON/);
    const trace = readTrace(r);
    expect(trace.failures).toEqual([r.error]);
    expect(trace.raw_reply).toContain("Sure! Just delete the import.");
    expect(trace.response).toBeUndefined();
  });

  it("screens the reply by the policies: bad advice, unknown policy ids and non-lint reruns are refused", async () => {
    const cases: [string, RegExp, string | undefined][] = [
      ["noqa", /suppress\.broad/, "suppress.broad"],
      ["noverify", /hooks\.no_verify/, "hooks.no_verify"],
      ["noverif", /--no-verif/, "hooks.no_verify"],
      ["ignore", /Ignore the F401 rule/, "suppress.broad"],
      ["unknownpolicy", /names policy "made\.up_policy", which bundle .* does not have/, undefined],
      ["rollback", /rerun calls rollback; a rerun must be a lint-family call/, undefined],
      ["otherfile", /rerun names \/etc\/passwd; it must check the finding's own files/, undefined],
    ];
    for (const [mode, message, policy] of cases) {
      const r = await server.call("remediation_advice", { finding: finding(mode) });
      expect(r, mode).toMatchObject({ success: false, error_type: "tool_error" });
      expect(String(r.error), mode).toMatch(/^claude: the advice is refused/);
      expect(String(r.error), mode).toMatch(message);
      if (policy) expect(r.policy_id, mode).toBe(policy);
      expect((readTrace(r).failures as string[])[0], mode).toBe(r.error);
    }
  });

  it("the prompt carries each principle's summary and the hook decisions that led here", async () => {
    const r = await server.call("remediation_advice", {
      finding: finding("valid"),
      hook_decisions: [
        "mcp-code-quality policy: blocked\n- hooks.no_verify [block] (git commit --no-verify -m wip)",
      ],
    });
    expect(r.success).toBe(true);
    const prompt = (JSON.parse(fs.readFileSync(path.join(bin, "argv.json"), "utf8")) as string[]).at(
      -1,
    ) as string;
    expect(prompt).toContain(
      '"summary": "Unused imports, variables and functions are removed, not kept just in case."',
    );
    expect(prompt).toContain('"hook_decisions"');
    expect(prompt).toContain("hooks.no_verify [block] (git commit --no-verify -m wip)");
  });

  it("refuses a reply whose rerun is not a tool of this server", async () => {
    const r = await server.call("remediation_advice", { finding: finding("badrerun") });
    expect(r).toMatchObject({ success: false, error_type: "tool_error" });
    expect(r.error).toContain('rerun names "bash"');
  });

  it("kills a provider that hangs past the timeout, with its children", async () => {
    fs.rmSync(path.join(bin, "pids.json"), { force: true });
    const r = await server.call("remediation_advice", { finding: finding("hang") });
    expect(r).toMatchObject({ success: false, error_type: "timeout" });
    expect(r.error).toContain("2 s advice timeout");
    const pids = JSON.parse(fs.readFileSync(path.join(bin, "pids.json"), "utf8")) as number[];
    expect(pids).toHaveLength(2);
    for (let i = 0; i < 40 && pids.some(alive); i++) await new Promise((res) => setTimeout(res, 50));
    expect(pids.filter(alive)).toEqual([]);
    expect(readTrace(r).exit).toMatchObject({ timed_out: true });
  });

  it("fails on a reply over the output cap", async () => {
    const r = await server.call("remediation_advice", { finding: finding("oversized") });
    expect(r).toMatchObject({ success: false, error_type: "tool_error" });
    expect(r.error).toContain("over the 65536-byte cap");
  });
});

const noRun = () => fs.rmSync(path.join(bin, "argv.json"), { force: true });
const ran = () => fs.existsSync(path.join(bin, "argv.json"));

describe("refused before anything runs", () => {
  it.each([
    [{ provider: "gemini" }, /gemini is not approved by the operator \(configured: claude\)/],
    [{ provider: "gpt-shell" }, /unknown advice provider "gpt-shell"/],
    [{ capabilities: ["read", "write"] }, /write cannot be granted/],
    [{ capabilities: ["shell", "git", "bypass"] }, /shell, git, bypass cannot be granted/],
    [{ files: ["big.py:1-60"] }, /over the 8192-byte cap/],
  ])("%j", async (extra, message) => {
    noRun();
    const r = await server.call("remediation_advice", { finding: finding("valid"), ...extra });
    expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(r.error).toMatch(message);
    expect(ran()).toBe(false);
    const trace = readTrace(r);
    expect(trace.failures).toEqual([r.error]);
    expect(trace.provider).toBe((extra as { provider?: string }).provider ?? "claude");
  });

  it("refuses to ask a provider about a diagnostic no policy grounds", async () => {
    noRun();
    const r = await server.call("remediation_advice", {
      finding: { ...finding("valid"), rule_id: "E501" },
    });
    expect(r.error).toMatch(/no policy grounding for ruff E501 in bundle sha256:fixture-advisor-1/);
    expect(ran()).toBe(false);
  });

  it("refuses path-like trace ids and files outside the allowlist", async () => {
    for (const id of ["../x", "a/b", "/etc/passwd", ".."]) {
      const r = await server.call("remediation_advice", { trace_id: id });
      expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
      expect(r.error).toContain("not a trace id");
    }
    const r = await server.call("remediation_advice", {
      finding: finding("valid"),
      files: ["/etc/passwd:1-3"],
    });
    expect(r).toMatchObject({ success: false, error_type: "path_validation" });
  });
});

describe("local mode and other sources", () => {
  it('answers from the advisor, marked provider "local"', async () => {
    noRun();
    const r = await server.call("remediation_advice", { finding: finding("valid"), provider: "local" });
    expect(ran()).toBe(false);
    expect(r).toMatchObject({
      success: true,
      provider: "local",
      mapped: true,
      policy_ids: ["python.unused_imports"],
      skill_ids: ["unused-imports"],
      steps: [
        "Delete the unused import; keep the ones the module uses.",
        "Check the name is not re-exported (__all__).",
        "Remove the import.",
        "Rerun the lint call.",
      ],
      rerun: { tool: "lint", arguments: { path: "app.py", linter: "ruff" } },
    });
    expect(readTrace(r)).toMatchObject({
      provider: "local",
      response: { policy_ids: ["python.unused_imports"] },
    });
  });

  it("takes a SARIF result and a retained lint-run trace", async () => {
    const sarif = {
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "ruff", rules: [{ id: "F401" }] } },
          originalUriBaseIds: { "%SRCROOT%": { uri: `file://${project}/` } },
          results: [
            { ruleId: "E501", message: { text: "long" } },
            {
              ruleIndex: 0,
              message: { text: "`os` imported but unused" },
              locations: [
                {
                  physicalLocation: {
                    artifactLocation: { uri: "app.py", uriBaseId: "%SRCROOT%" },
                    region: { startLine: 1 },
                  },
                },
              ],
            },
          ],
        },
      ],
    };
    const r = await server.call("remediation_advice", { sarif, result_index: 1, provider: "local" });
    expect(r).toMatchObject({ success: true, provider: "local", policy_ids: ["python.unused_imports"] });
    expect(readTrace(r).files).toEqual([{ path: "app.py", start_line: 1, end_line: 4 }]);
    // A trace is a SARIF log, as `retain: true` writes it (this in-process server cannot load the ruff
    // thread's compiled module, so the log above stands in for a retained ruff run).
    fs.mkdirSync(path.join(project, ".mcp-cache", "lint-runs"), { recursive: true });
    fs.writeFileSync(path.join(project, ".mcp-cache", "lint-runs", "run-1.json"), JSON.stringify(sarif));
    const t = await server.call("remediation_advice", {
      trace_id: "run-1",
      result_index: 1,
      provider: "local",
    });
    expect(t).toMatchObject({ success: true, policy_ids: ["python.unused_imports"] });
    for (const bad of ["../x.json", "a/b"]) {
      const refused = await server.call("remediation_advice", { trace_id: bad, provider: "local" });
      expect(refused.error).toContain("not a trace id");
    }
    expect(readTrace(t).files).toEqual([{ path: "app.py", start_line: 1, end_line: 4 }]);
  });
});

describe("lint_advice through the fixture advisor", () => {
  it("maps ruff F401 to its policy, principle, skill and the exact lint call", async () => {
    const r = await server.call("lint_advice", { tool: "ruff", rule: "F401", path: "app.py" });
    expect(r).toMatchObject({
      success: true,
      mapped: true,
      bundle_hash: "sha256:fixture-advisor-1",
      policy_ids: ["python.unused_imports"],
      principle_ids: ["no-dead-code"],
      skill_ids: ["unused-imports"],
      advice: ["Delete the unused import; keep the ones the module uses."],
      skills: [{ skill_id: "unused-imports", title: "Unused imports" }],
      rerun: { tool: "lint", arguments: { path: "app.py", linter: "ruff" } },
    });
    expect(r.note).toBeUndefined();
  });

  it("says when the bundle does not map a diagnostic", async () => {
    const r = await server.call("lint_advice", { tool: "ruff", rule: "E501" });
    expect(r).toMatchObject({ success: true, mapped: false, policy_ids: [] });
    expect(r.note).toBe("unmapped: the bundle's evidence map has no policy for ruff E501");
  });
});

describe("provider configuration and adapters", () => {
  const config = (args: string[]) => loadConfig(args, {}, project);

  it("fails fast on a provider that needs a network the operator did not allow", () => {
    const c = config(["--advice-provider", "claude", "--advice-provider-path", claude]);
    expect(() => configuredProvider(c, [project])).toThrow(/needs the network .*--advice-allow-network/);
  });

  it("checks --advice-provider-path at start: inside the allowed paths, missing, not executable, a link", () => {
    const start = (executable: string) => () =>
      config([
        "--advice-provider",
        "codex",
        "--advice-provider-path",
        executable,
        "--advice-allow-network",
        "true",
      ]);
    const inside = path.join(project, "claude");
    fs.copyFileSync(claude, inside);
    fs.chmodSync(inside, 0o755);
    expect(start(inside)).toThrow(/^--advice-provider-path: .* lies inside the allowed path/);
    fs.rmSync(inside);
    expect(start(inside)).toThrow(/^--advice-provider-path: .* does not exist/);
    const plain = path.join(bin, "not-executable");
    fs.writeFileSync(plain, "#!/bin/sh\n", { mode: 0o644 });
    expect(start(plain)).toThrow(/^--advice-provider-path: .* is not executable/);
    // A link could be re-pointed later (one inside the allowed paths, by the agent): refused, wherever it is.
    const link = path.join(bin, "claude-link");
    fs.symlinkSync(claude, link);
    expect(start(link)).toThrow(/^--advice-provider-path: .* is a symbolic link/);
    expect(() => config(["--advice-provider", "claude"])).toThrow(/needs the approved executable path/);
  });

  it("still refuses at the call an executable that became a link or moved inside the roots", () => {
    const swapped = path.join(bin, "claude-swapped");
    fs.copyFileSync(claude, swapped);
    fs.chmodSync(swapped, 0o755);
    const c = config([
      "--advice-provider",
      "codex",
      "--advice-provider-path",
      swapped,
      "--advice-allow-network",
      "true",
    ]);
    fs.rmSync(swapped);
    fs.symlinkSync(claude, swapped);
    expect(() => configuredProvider(c, [project])).toThrow(/is a symbolic link/);
    fs.rmSync(swapped);
    expect(() => configuredProvider(c, [project])).toThrow(/is not an executable file/);
  });

  it("reads codex's final message and gemini's JSON response", () => {
    const text = JSON.stringify(ADVICE);
    expect(parseAdviceReply(PROVIDERS.codex.replyText(`${text}\n`))).toEqual({ ok: true, advice: ADVICE });
    const gemini = JSON.stringify({ response: text, stats: { models: {} } });
    expect(parseAdviceReply(PROVIDERS.gemini.replyText(gemini))).toEqual({ ok: true, advice: ADVICE });
    expect(() => PROVIDERS.gemini.replyText(JSON.stringify({ error: { message: "quota" } }))).toThrow(
      /quota/,
    );
    expect(PROVIDERS.codex.argv("P")).toEqual([
      "exec",
      "--sandbox",
      "read-only",
      "--skip-git-repo-check",
      "--ephemeral",
      "--color",
      "never",
      "--",
      "P",
    ]);
    expect(PROVIDERS.gemini.argv("P")).toEqual([
      "--output-format",
      "json",
      "--approval-mode",
      "default",
      "--prompt",
      "P",
    ]);
    const bad = parseAdviceReply(JSON.stringify({ ...ADVICE, steps: "do it" }));
    expect(bad).toMatchObject({ ok: false });
    expect(!bad.ok && bad.error).toContain("steps");
  });
});

describe("advice traces are capped like the lint traces", () => {
  it("keeps at most --trace-max-count traces, the newest", async () => {
    const dir = tempDir("mcq-advice-caps-");
    fs.writeFileSync(path.join(dir, "app.py"), "import os\n");
    const capped = await connectInProcess({
      cwd: dir,
      args: ["--toolsets", "core,policy", "--rate-limit", "false", "--trace-max-count", "2"],
      services: {
        [POLICY_ADVISOR_SERVICE]: new FixtureAdvisor(path.join(FIXTURES, "policy", "advisor.json")),
      },
    });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await capped.call("remediation_advice", {
          finding: { ...finding("local"), path: "app.py" },
        });
        expect(r.success).toBe(true);
        ids.push(r.request_id as string);
      }
      const kept = fs.readdirSync(path.join(dir, ".mcp-cache", "advice-traces")).sort();
      expect(kept).toEqual(
        ids
          .slice(2)
          .map((id) => `${id}.json`)
          .sort(),
      );
    } finally {
      await capped.close();
    }
  });
});
