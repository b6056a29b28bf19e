/**
 * `--sandbox required` and `auto` on a host without bubblewrap: the built server runs in a bwrap of its own
 * whose /usr/bin/bwrap is an empty file, so its probe finds none (a real machine without the package, as far as
 * the server can tell). required refuses every external tool naming the flag and the package; auto runs them
 * unsandboxed and says so in get_status, tool_capabilities and the result's notes.
 */
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { CLI, resultOf } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { probeSandbox } from "../../src/exec/sandbox/launch.js";

async function serverWithoutBwrap(mode: string, project: string) {
  const bwrap = probeSandbox().bwrap as string;
  const audit = path.join(tempDir("mcq-nobwrap-audit-"), "audit.log");
  const transport = new StdioClientTransport({
    command: bwrap,
    args: [
      ...["--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/dev/null", bwrap, "--"],
      process.execPath,
      CLI,
      ...["--mode", "stdio", "--log-level", "warn", "--sandbox", mode, "--allowed-paths", project],
      ...["--result-cache", "false", "--audit-log", audit],
    ],
    cwd: project,
    env: { ...(process.env as Record<string, string>), PATH: `${TOOLS_VENV_BIN}:${process.env.PATH ?? ""}` },
    stderr: "pipe",
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  return {
    call: async (name: string, args: Record<string, unknown> = {}) =>
      resultOf((await client.callTool({ name, arguments: args })) as Record<string, unknown>),
    close: () => client.close(),
  };
}

function pythonProject(): string {
  const project = tempDir("mcq-nobwrap-");
  fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "p"\n');
  fs.writeFileSync(path.join(project, "app.py"), "import os\n");
  return project;
}

describe.skipIf(missing("bwrap"))("without bubblewrap", () => {
  it("--sandbox required refuses to run a tool, naming the flag and the package", async () => {
    const project = pythonProject();
    const s = await serverWithoutBwrap("required", project);
    try {
      const status = await s.call("get_status");
      expect(status.sandbox).toMatchObject({ mode: "required", enforced: false, kind: "none" });
      const r = await s.call("type_check", { path: project, checker: "mypy" });
      expect(r).toMatchObject({ success: false, error_type: "tool_not_found" });
      expect(r.error).toMatch(/--sandbox required/);
      expect(r.error).toMatch(/apt-get install bubblewrap/);
    } finally {
      await s.close();
    }
  });

  // The ruff CLI: the embedded ruff, its fallback, runs in the server and is never sandboxed.
  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
    "--sandbox auto runs the tool unsandboxed and says so everywhere",
    async () => {
      const project = pythonProject();
      const s = await serverWithoutBwrap("auto", project);
      try {
        const status = await s.call("get_status");
        expect(status.sandbox).toMatchObject({
          mode: "auto",
          enforced: false,
          note: expect.stringMatching(/^not sandboxed/),
        });
        const caps = await s.call("tool_capabilities");
        expect(caps.sandbox).toMatchObject({ enforced: false });
        const ruff = (caps.tools as { name: string; sandbox: Record<string, unknown> }[]).find(
          (t) => t.name === "ruff",
        );
        expect(ruff?.sandbox).toMatchObject({ enforced: false, kind: "none" });
        const r = await s.call("lint", { path: project, linter: "ruff" });
        expect(r.success, JSON.stringify(r)).toBe(true);
        expect(r.notes).toEqual(
          expect.arrayContaining([expect.stringMatching(/^not sandboxed: .*--sandbox auto/)]),
        );
      } finally {
        await s.close();
      }
    },
  );
});
