/**
 * `mcp-code-quality hook claude-code` as Claude Code runs it: a child process fed real-shaped PreToolUse
 * payloads on stdin (Bash, Write, Edit, MultiEdit), answering deny / ask / advice as context / nothing
 * (other events and malformed input: claude-code-events.test.ts); and
 * `hook install claude-code` merging into an existing .claude/settings.json.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { preToolUseDecision, preToolUseText } from "../helpers/hook-answer.js";
import { CLI, REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

let project: string;

beforeAll(() => {
  project = tempDir("mcq-claude-hook-");
  fs.mkdirSync(path.join(project, "src"));
  fs.writeFileSync(path.join(project, "src", "app.py"), "import os\n\nprint(os.getcwd())\n");
  fs.writeFileSync(
    path.join(project, "tsconfig.json"),
    '{\n  "compilerOptions": {\n    "strict": true\n  }\n}\n',
  );
});

function hook(toolName: string, toolInput: Record<string, unknown>) {
  const payload = {
    session_id: "abc123",
    transcript_path: path.join(project, "transcript.jsonl"),
    cwd: project,
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: toolName,
    tool_input: toolInput,
  };
  const r = spawnSync(process.execPath, [CLI, "hook", "claude-code"], {
    input: JSON.stringify(payload),
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, CLAUDE_PROJECT_DIR: project },
  });
  expect(r.status, r.stderr).toBe(0);
  // The answer must have PreToolUse's documented shape (strict: another event's fields do not parse).
  const decision = preToolUseDecision(r.stdout);
  if (decision === "allow") return { decision: "none", reason: "" };
  return { decision, reason: preToolUseText(r.stdout) };
}

describe("hook claude-code", () => {
  it("checks NotebookEdit: the cell's new source, at the notebook's path", () => {
    const nb = path.join(project, "analysis.ipynb");
    fs.writeFileSync(
      nb,
      JSON.stringify({
        cells: [{ id: "c1", cell_type: "code", source: ["import os\n"] }],
        nbformat: 4,
        nbformat_minor: 5,
      }),
    );
    const token = `ghp_${"aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"}`;
    expect(
      hook("NotebookEdit", { notebook_path: nb, cell_id: "c1", new_source: `TOKEN = "${token}"\n` }).decision,
    ).toBe("deny");
    expect(
      hook("NotebookEdit", { notebook_path: nb, cell_id: "c1", new_source: "import os  # noqa\n" }).decision,
    ).toBe("deny");
    expect(
      hook("NotebookEdit", { notebook_path: nb, cell_id: "c1", new_source: "print(os.getcwd())\n" }).decision,
    ).toBe("none");
    expect(
      hook("NotebookEdit", {
        notebook_path: path.join(project, ".github", "workflows", "nb.ipynb"),
        new_source: "x = 1\n",
        edit_mode: "insert",
      }).decision,
    ).toBe("deny");
  });

  it("answers ask at once for a Bash line over the size cap, whatever it holds (8 MB, 15 MB, over the input cap)", () => {
    for (const mb of [8, 15]) {
      const huge = `git commit --no-verify -m x; ${"echo ok; ".repeat((mb * 1024 * 1024) / 9)}`;
      const r = hook("Bash", { command: huge });
      expect(r.decision, `${mb} MB`).toBe("ask");
      expect(r.reason).toContain("characters long");
    }
    const over = hook("Bash", { command: "x".repeat(17 * 1024 * 1024) });
    expect(over.decision).toBe("ask");
    expect(over.reason).toContain("larger than");
  });

  it("denies a blocked Bash command with the reason and the remediation", () => {
    const r = hook("Bash", { command: 'bash -c "git commit --no-verify -m wip"', description: "Commit" });
    expect(r.decision).toBe("deny");
    expect(r.reason).toContain("hooks.no_verify [block]");
    expect(r.reason).toContain("advice:");
    expect(r.reason).toMatch(/agent_remediation: \{"bundle_hash":"sha256:/);
  });

  it("asks for a confirm-level warn, gives warn-level advice as context, says nothing for an allowed command", () => {
    expect(hook("Bash", { command: "git reset --hard HEAD~1" }).decision).toBe("ask");
    const advice = hook("Bash", { command: "npx eslint src" });
    expect(advice.decision).toBe("advise");
    expect(advice.reason).toContain("tooling.raw_linter [warn]");
    expect(hook("Bash", { command: "git status" }).decision).toBe("none");
  });

  it("checks Write, Edit and MultiEdit against the file as it is", () => {
    const file = path.join(project, "src", "app.py");
    expect(hook("Write", { file_path: file, content: "import os  # noqa\n" }).decision).toBe("deny");
    expect(
      hook("Write", { file_path: path.join(project, "src", "new.py"), content: "x = 1\n" }).decision,
    ).toBe("none");
    const tsconfig = path.join(project, "tsconfig.json");
    const weakened = hook("Edit", {
      file_path: tsconfig,
      old_string: '"strict": true',
      new_string: '"strict": false',
      replace_all: false,
    });
    expect(weakened.decision).toBe("deny");
    expect(weakened.reason).toContain("config.weakened");
    const multi = hook("MultiEdit", {
      file_path: file,
      edits: [
        { old_string: "import os\n", new_string: "import os\nimport sys\n" },
        { old_string: "print(os.getcwd())", new_string: 'print(os.getcwd(), "AKIA2E0A8F3B244C9986")' },
      ],
    });
    expect(multi.decision).toBe("deny");
    expect(multi.reason).toContain("secrets.in_edit");
    expect(
      hook("Edit", { file_path: file, old_string: "getcwd()", new_string: "getcwd(), sep=''" }).decision,
    ).toBe("none");
    expect(
      hook("Write", {
        file_path: path.join(project, ".github", "workflows", "ci.yml"),
        content: "on: push\n",
      }).decision,
    ).toBe("deny");
  });

  it("an edit outside the project is denied; other tools are left alone", () => {
    expect(hook("Write", { file_path: "/etc/mcq-never.conf", content: "x\n" }).reason).toContain(
      "paths.outside_allowlist",
    );
    expect(hook("Read", { file_path: "/etc/passwd" }).decision).toBe("none");
  });

  it("a malformed payload denies instead of failing open", () => {
    const r = spawnSync(process.execPath, [CLI, "hook", "claude-code"], {
      input: "{not json",
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
  });
});

describe("hook install claude-code", () => {
  const install = (dir: string, extra: string[] = [], env: NodeJS.ProcessEnv = process.env) =>
    spawnSync(process.execPath, [CLI, "hook", "install", "claude-code", "--project", dir, ...extra], {
      encoding: "utf8",
      env,
    });
  /** A project with this package as its devDependency, linked as `npm install ../mcp-code-quality` would. */
  function projectWithDependency(): string {
    const dir = tempDir("mcq-claude-install-");
    fs.mkdirSync(path.join(dir, "node_modules"));
    fs.symlinkSync(REPO_ROOT, path.join(dir, "node_modules", "mcp-code-quality"));
    return dir;
  }
  const commandIn = (file: string) =>
    JSON.parse(fs.readFileSync(file, "utf8")).hooks.PreToolUse.at(-1).hooks[0].command as string;
  /** The line as Claude Code runs it on a teammate's machine: its own project folder, its own PATH. */
  const runLine = (command: string, projectDir: string, PATH = process.env.PATH) =>
    spawnSync("sh", ["-c", command], {
      input: JSON.stringify({
        tool_name: "Bash",
        cwd: projectDir,
        tool_input: { command: "HUSKY=0 git commit -m x" },
      }),
      encoding: "utf8",
      env: { ...process.env, PATH, CLAUDE_PROJECT_DIR: projectDir },
      timeout: 60_000,
    });

  it("adds the hook to .claude/settings.json and keeps what was there", () => {
    const dir = projectWithDependency();
    fs.mkdirSync(path.join(dir, ".claude"));
    const existing = {
      permissions: { allow: ["Bash(npm test)"] },
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo other-hook" }] }],
        PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "npx prettier --write" }] }],
      },
    };
    fs.writeFileSync(path.join(dir, ".claude", "settings.json"), JSON.stringify(existing, null, 2));
    expect(install(dir).status).toBe(0);
    expect(install(dir).stdout).toContain("already installed");
    const settings = JSON.parse(fs.readFileSync(path.join(dir, ".claude", "settings.json"), "utf8"));
    expect(settings.permissions).toEqual(existing.permissions);
    expect(settings.hooks.PostToolUse).toEqual(existing.hooks.PostToolUse);
    expect(settings.hooks.PreToolUse).toHaveLength(2);
    expect(settings.hooks.PreToolUse[0]).toEqual(existing.hooks.PreToolUse[0]);
    expect(settings.hooks.PreToolUse[1].matcher).toBe("Bash|Write|Edit|MultiEdit|NotebookEdit");
  });

  it("writes a shared line with no path of this machine, which works on a teammate's machine", () => {
    const dir = projectWithDependency();
    const r = install(dir);
    expect(r.status, r.stderr).toBe(0);
    const command = commandIn(path.join(dir, ".claude", "settings.json"));
    expect(command).not.toContain(REPO_ROOT);
    expect(command).not.toContain(dir);
    expect(command).not.toContain(process.execPath);
    expect(command).toContain("$CLAUDE_PROJECT_DIR/node_modules/mcp-code-quality/dist/bundle/hook.cjs");
    expect(fs.existsSync(path.join(dir, ".claude", "settings.local.json"))).toBe(false);
    // The teammate's clone lives elsewhere, with the devDependency installed there: the same line decides.
    const teammate = projectWithDependency();
    const viaDependency = runLine(command, teammate);
    expect(viaDependency.status, viaDependency.stderr).toBe(0);
    expect(JSON.parse(viaDependency.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    // Another teammate has no node_modules but mcp-code-quality on PATH (a global install).
    const bare = tempDir("mcq-claude-teammate-");
    const bin = tempDir("mcq-claude-bin-");
    fs.writeFileSync(
      path.join(bin, "mcp-code-quality"),
      `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`,
      { mode: 0o755 },
    );
    const viaPath = runLine(command, bare, `${bin}:${process.env.PATH ?? ""}`);
    expect(viaPath.status, viaPath.stderr).toBe(0);
    expect(JSON.parse(viaPath.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    // Where it is installed neither way, every call is blocked (exit 2) and the message says what to install.
    const nowhere = runLine(command, bare, path.dirname(process.execPath) + ":/usr/bin:/bin");
    expect(nowhere.status).toBe(2);
    expect(nowhere.stdout).toBe("");
    expect(nowhere.stderr).toContain("not installed on this machine");
    expect(nowhere.stderr).toContain("npm install -g mcp-code-quality");
  });

  it("refuses the shared line where it could not run (nothing installed for the project, nothing on PATH)", () => {
    const dir = tempDir("mcq-claude-install-");
    const r = install(dir, [], { ...process.env, PATH: path.dirname(process.execPath) + ":/usr/bin:/bin" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("npm install --save-dev mcp-code-quality");
    expect(r.stderr).toContain("--local");
    expect(fs.existsSync(path.join(dir, ".claude"))).toBe(false);
  });

  it("--local writes this machine's line (start-up snapshot, fallback, fail-closed) into settings.local.json", () => {
    const dir = tempDir("mcq-claude-install-");
    const r = install(dir, ["--local"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("start-up snapshot");
    expect(fs.existsSync(path.join(dir, ".claude", "settings.json"))).toBe(false);
    const command = commandIn(path.join(dir, ".claude", "settings.local.json"));
    const blob = path.join(
      REPO_ROOT,
      "dist",
      "bundle",
      `hook-snapshot-${process.version}-${process.arch}.blob`,
    );
    expect(command).toContain(`--snapshot-blob '${blob}' claude-code`);
    expect(command).toContain(
      `${path.join(REPO_ROOT, "dist", "bundle", "hook.cjs")}' claude-code; }; } || {`,
    );
    expect(command).toContain("exit 2");
    const denied = runLine(command, dir);
    expect(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
  });

  it("refuses a --project folder that does not exist, and creates nothing", () => {
    const missing = path.join(tempDir("mcq-claude-install-"), "typo");
    for (const target of ["claude-code", "pre-commit"]) {
      const r = spawnSync(process.execPath, [CLI, "hook", "install", target, "--project", missing], {
        encoding: "utf8",
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`--project ${missing}: no such folder`);
      expect(fs.existsSync(missing)).toBe(false);
    }
  });
});

describe("the installed Claude Code hook fails closed", () => {
  /** The command line `hook install claude-code` writes, for a hook entry at `entry`. */
  async function installed(entry: string): Promise<string> {
    const { claudeCommandLine } = await import("../../src/hooks/install.js");
    return claudeCommandLine(`'${process.execPath}' '${entry}' claude-code`);
  }
  const run = (command: string, toolInput: Record<string, unknown> = { command: "git status" }) =>
    spawnSync("sh", ["-c", command], {
      input: JSON.stringify({ tool_name: "Bash", cwd: project, tool_input: toolInput }),
      encoding: "utf8",
      env: { ...process.env, CLAUDE_PROJECT_DIR: project },
      timeout: 60_000,
    });

  // The unbundled entry (dist/hook.js) and the bundled one the installer writes (dist/bundle/hook.cjs).
  for (const entry of [["hook.js"], ["bundle", "hook.cjs"]]) {
    it(`exits 2 (Claude Code's blocking code) when dist/ is gone (${entry.join("/")})`, async () => {
      const gone = path.join(tempDir("mcq-no-dist-"), "dist", ...entry);
      const r = run(await installed(gone));
      expect(r.status).toBe(2);
      expect(r.stderr).toContain("the policy hook failed");
    });

    it(`blocks when node_modules is missing (${entry.join("/")})`, async () => {
      const copy = tempDir("mcq-no-modules-");
      fs.cpSync(path.join(REPO_ROOT, "dist"), path.join(copy, "dist"), { recursive: true });
      const command = await installed(path.join(copy, "dist", ...entry));
      // The bundle holds the parser's code but not its WebAssembly: it denies; unbundled, the import fails.
      for (const input of [{ command: "git status | cat" }, { file_path: "a.py", content: "x = 1\n" }]) {
        const r = spawnSync("sh", ["-c", command], {
          input: JSON.stringify({
            tool_name: "command" in input ? "Bash" : "Write",
            cwd: project,
            tool_input: input,
          }),
          encoding: "utf8",
          env: { ...process.env, CLAUDE_PROJECT_DIR: project },
          timeout: 60_000,
        });
        if (r.status === 2) expect(r.stderr).toMatch(/Cannot find (package|module)/);
        else {
          expect(r.status).toBe(0);
          expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
          expect(r.stdout).toMatch(/Cannot find (package|module)/);
        }
      }
    });
  }

  it("answers normally when it works: allowed is silent, blocked is a deny on stdout", async () => {
    const command = await installed(path.join(REPO_ROOT, "dist", "bundle", "hook.cjs"));
    const ok = run(command);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toBe("");
    const denied = run(command, { command: "git commit --no-verif -m x" });
    expect(denied.status).toBe(0);
    expect(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
  });
});
