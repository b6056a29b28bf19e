/**
 * The Claude Code hook answers each event in that event's own documented shape (code.claude.com/docs/en/hooks),
 * through every entry that runs it: `mcp-code-quality hook claude-code` (dist/cli.js), dist/hook.js, the
 * installed bundle dist/bundle/hook.cjs and its start-up snapshot. Each is a real process fed the payload
 * Claude Code writes on stdin (session_id, transcript_path, cwd, permission_mode, hook_event_name, …).
 *
 * - PreToolUse: deny | ask in hookSpecificOutput.permissionDecision; warn-level advice as
 *   hookSpecificOutput.additionalContext with no decision (the model reads it, the call goes on).
 * - PostToolUse: top-level decision "block" + reason, or hookSpecificOutput.additionalContext.
 * - Any other event: nothing.
 * - A checked tool whose tool_input does not have its schema's shape is denied, naming the field.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  POST_TOOL_USE_OUTPUT,
  postToolUseDecision,
  preToolUseDecision,
  preToolUseText,
} from "../helpers/hook-answer.js";
import { CLI, REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const BUNDLE = path.join(REPO_ROOT, "dist", "bundle");
const BLOB = path.join(BUNDLE, `hook-snapshot-${process.version}-${process.arch}.blob`);
const ENTRIES: Record<string, string[]> = {
  cli: [CLI, "hook", "claude-code"],
  "hook.js": [path.join(REPO_ROOT, "dist", "hook.js"), "claude-code"],
  "hook.cjs": [path.join(BUNDLE, "hook.cjs"), "claude-code"],
  snapshot: ["--snapshot-blob", BLOB, "claude-code"],
};

let project: string;

beforeAll(() => {
  project = tempDir("mcq-claude-events-");
  fs.mkdirSync(path.join(project, "src"));
  fs.writeFileSync(path.join(project, "src", "app.py"), "import os\n\nprint(os.getcwd())\n");
});

/** A payload as Claude Code writes it for `event`. */
function payload(event: string, fields: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: "9a1c4f0e-5b7d-4e2a-8c3f-1d2e3f4a5b6c",
    transcript_path: path.join(project, "transcript.jsonl"),
    cwd: project,
    permission_mode: "default",
    hook_event_name: event,
    ...fields,
  });
}

const tool = (event: string, name: string, input: unknown, extra: Record<string, unknown> = {}) =>
  payload(event, {
    tool_name: name,
    tool_input: input,
    tool_use_id: "toolu_01ABCDEF",
    ...(event === "PostToolUse" ? { tool_response: { stdout: "", stderr: "", interrupted: false } } : {}),
    ...extra,
  });

function run(entry: string, input: string, env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(process.execPath, ENTRIES[entry] as string[], {
    input,
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CLAUDE_PROJECT_DIR: project, ...env },
  });
  expect(r.status, `${entry}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** The answer, the same through every entry. */
function answer(input: string): string {
  const outs = Object.keys(ENTRIES).map((e) => [e, run(e, input)] as const);
  const first = outs[0]?.[1] ?? "";
  for (const [entry, out] of outs) expect(out, entry).toBe(first);
  return first;
}

describe("each event gets its own shape", () => {
  it("PreToolUse: deny, ask for confirm-level and undecided, advice as additionalContext, nothing allowed", () => {
    const cases: [string, unknown, string, string][] = [
      ["Bash", { command: "git commit --no-verify -m x" }, "deny", "hooks.no_verify"],
      ["Bash", { command: "git reset --hard HEAD~1" }, "ask", "destructive.disk_or_discard"],
      ["Bash", { command: "git push --force origin feature" }, "ask", "git.force_push"],
      ["Bash", { command: 'eval "$X"' }, "ask", "command.undecidable"],
      ["Bash", { command: "npx eslint .", description: "Lint" }, "advise", "tooling.raw_linter"],
      ["Bash", { command: "git status" }, "allow", ""],
      [
        "Write",
        { file_path: path.join(project, ".mcp-code-quality", "notes.md"), content: "x\n" },
        "ask",
        "protected.policy",
      ],
      ["Write", { file_path: path.join(project, "src", "b.py"), content: "print(1)\n" }, "allow", ""],
    ];
    for (const [name, input, want, policy] of cases) {
      const out = answer(tool("PreToolUse", name, input));
      expect(preToolUseDecision(out), JSON.stringify(input)).toBe(want);
      if (policy) expect(preToolUseText(out)).toContain(policy);
    }
  });

  it("PostToolUse: blocked and confirm-level are decision block with the reason, advice is additionalContext", () => {
    const cases: [string, unknown, string, string][] = [
      ["Bash", { command: "git commit --no-verify -m x" }, "block", "hooks.no_verify"],
      ["Bash", { command: "git reset --hard HEAD~1" }, "block", "has already run"],
      ["Bash", { command: "npx eslint ." }, "advise", "tooling.raw_linter"],
      ["Bash", { command: "git status" }, "allow", ""],
      [
        "Write",
        {
          file_path: path.join(project, "src", "c.py"),
          content: `TOKEN = "ghp_${"aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"}"\n`,
        },
        "block",
        "secrets",
      ],
    ];
    for (const [name, input, want, text] of cases) {
      const out = answer(tool("PostToolUse", name, input));
      expect(postToolUseDecision(out), JSON.stringify(input)).toBe(want);
      expect(out).not.toContain("permissionDecision");
      if (text) {
        const parsed = POST_TOOL_USE_OUTPUT.parse(JSON.parse(out));
        expect(parsed.reason ?? parsed.hookSpecificOutput?.additionalContext).toContain(text);
      }
    }
  });

  it("events the hook does not judge get nothing (exit 0), never another event's shape", () => {
    const inputs = [
      payload("UserPromptSubmit", { prompt: "run git commit --no-verify -m x" }),
      payload("SessionStart", { source: "startup", model: "claude-sonnet-4-5" }),
      payload("Stop", { stop_hook_active: false }),
      payload("Notification", { message: "Claude needs your permission to use Bash" }),
      tool("PostToolUseFailure", "Bash", { command: "git commit --no-verify -m x" }, { error: "exit 1" }),
      tool("PermissionRequest", "Bash", { command: "git commit --no-verify -m x" }),
    ];
    for (const input of inputs) expect(answer(input), input).toBe("");
  });

  it("the deadline's answer is in the payload's event's shape, also while the payload is still arriving", async () => {
    // Claude Code has written the payload's start and stalls: the deadline answers from what it has read.
    for (const [event, decide, want] of [
      ["PreToolUse", preToolUseDecision, "ask"],
      ["PostToolUse", postToolUseDecision, "block"],
    ] as const) {
      const whole = tool(event, "Bash", { command: "git status" });
      const child = spawn(process.execPath, ENTRIES["hook.cjs"] as string[], {
        env: { ...process.env, CLAUDE_PROJECT_DIR: project, MCP_CODE_QUALITY_HOOK_DEADLINE_MS: "1500" },
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
      child.stdin.write(whole.slice(0, whole.indexOf('"tool_input"')));
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      child.stdin.destroy();
      expect(code).toBe(0);
      expect(decide(out), out).toBe(want);
      expect(out).toContain("no decision within 1500 ms");
    }
  });

  it("a PostToolUse payload over the input cap is answered in PostToolUse's shape, unread", () => {
    const big = tool("PostToolUse", "Write", {
      file_path: path.join(project, "src", "big.py"),
      content: "x".repeat(17 * 1024 * 1024),
    });
    const out = run("hook.cjs", big);
    expect(postToolUseDecision(out)).toBe("block");
    expect(out).toContain("larger than");
  });
});

describe("malformed tool input is denied, naming what is wrong", () => {
  const file = () => path.join(project, "src", "app.py");
  const cases = (): [string, unknown, string][] => [
    ["Bash", { command: 123 }, "tool_input.command"],
    ["Bash", { command: ["git", "status"] }, "tool_input.command"],
    ["Bash", "git status", "tool_input"],
    ["Bash", undefined, "tool_input"],
    ["Write", { file_path: 5, content: "x" }, "tool_input.file_path"],
    ["Write", { file_path: file() }, "tool_input.content"],
    ["Edit", { file_path: file(), old_string: 1, new_string: "x" }, "tool_input.old_string"],
    [
      "Edit",
      { file_path: file(), old_string: "os", new_string: "sys", replace_all: "yes" },
      "tool_input.replace_all",
    ],
    ["MultiEdit", { file_path: file(), edits: "x" }, "tool_input.edits"],
    ["MultiEdit", { file_path: file(), edits: [{ old_string: "os" }] }, "tool_input.edits.0.new_string"],
    ["NotebookEdit", { notebook_path: file(), new_source: 5 }, "tool_input.new_source"],
    [
      "NotebookEdit",
      { notebook_path: file(), new_source: "x", edit_mode: "rewrite" },
      "tool_input.edit_mode",
    ],
  ];

  it("PreToolUse: deny with the field and the expected type", () => {
    for (const [name, input, field] of cases()) {
      const out = answer(tool("PreToolUse", name, input));
      expect(preToolUseDecision(out), `${name} ${JSON.stringify(input)}`).toBe("deny");
      expect(preToolUseText(out)).toContain(`${name} ${field}`);
    }
    const bash = preToolUseText(answer(tool("PreToolUse", "Bash", { command: 123 })));
    expect(bash).toMatch(/tool_input\.command: .*expected string, received number/);
  });

  it("PostToolUse: block with the same reason; the envelope's own fields too", () => {
    const out = answer(tool("PostToolUse", "Bash", { command: 123 }));
    expect(postToolUseDecision(out)).toBe("block");
    expect(out).toContain("tool_input.command");
    const cwd = answer(
      JSON.stringify({
        hook_event_name: "PreToolUse",
        cwd: 5,
        tool_name: "Bash",
        tool_input: { command: "ls" },
      }),
    );
    expect(preToolUseDecision(cwd)).toBe("deny");
    expect(preToolUseText(cwd)).toContain("cwd");
    // A malformed envelope of an event the hook does not judge is still that event's: nothing.
    expect(answer(payload("UserPromptSubmit", { prompt: "hi", cwd: 5 }))).toBe("");
    const postCwd = answer(tool("PostToolUse", "Bash", { command: "ls" }, { cwd: 5 }));
    expect(postToolUseDecision(postCwd)).toBe("block");
    expect(postCwd).toContain("cwd");
    const event = answer(
      JSON.stringify({ hook_event_name: 7, tool_name: "Bash", tool_input: { command: "ls" } }),
    );
    expect(preToolUseDecision(event)).toBe("deny");
    expect(preToolUseText(event)).toContain("hook_event_name");
  });

  it("well-formed input of every checked tool is judged, not denied as malformed", () => {
    const nb = path.join(project, "a.ipynb");
    fs.writeFileSync(nb, JSON.stringify({ cells: [{ id: "c1", cell_type: "code", source: ["x = 1\n"] }] }));
    const ok: [string, unknown][] = [
      ["Bash", { command: "ls", timeout: 1000, run_in_background: false }],
      ["Edit", { file_path: file(), old_string: "getcwd", new_string: "sep", replace_all: false }],
      ["MultiEdit", { file_path: file(), edits: [{ old_string: "getcwd", new_string: "sep" }] }],
      ["NotebookEdit", { notebook_path: nb, cell_id: "c1", edit_mode: "delete" }],
      ["NotebookEdit", { notebook_path: nb, cell_id: "c1", new_source: "y = 2\n", cell_type: "code" }],
    ];
    for (const [name, input] of ok) expect(answer(tool("PreToolUse", name, input)), name).toBe("");
  });

  it("tools the hook does not check keep today's answer: nothing, whatever their input", () => {
    expect(answer(tool("PreToolUse", "Read", { file_path: 5 }))).toBe("");
    expect(answer(tool("PreToolUse", "mcp__github__create_issue", { title: 1 }))).toBe("");
  });
});
