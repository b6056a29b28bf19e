/**
 * Issue 26.15-26.16: a server started outside every allowed root. A tool called without `path` defaults to
 * the single allowed root (or to the project of the files given), not to the server's working directory; and
 * every path a result shows (relative to its project root) is accepted back as input by every tool.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";

function project(name: string): string {
  const dir = tempDir(`mcq-${name}-`);
  fs.writeFileSync(path.join(dir, "pyproject.toml"), `[project]\nname = "${name}"\nversion = "0"\n`);
  fs.mkdirSync(path.join(dir, "src"));
  fs.writeFileSync(path.join(dir, "src", "a.py"), "import os\nimport sys\n");
  return dir;
}

const env = { PATH: `${TOOLS_VENV_BIN}:${process.env.PATH}`, VIRTUAL_ENV: undefined };

describe.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
  "a server whose working directory is outside the allowed roots",
  () => {
    let dir: string;
    let outside: string;
    let s: Connected;
    beforeAll(async () => {
      dir = project("shown");
      outside = tempDir("mcq-elsewhere-");
      s = await connectStdio({ args: ["--allowed-paths", dir, "--rate-limit", "false"], cwd: outside, env });
    });
    afterAll(() => s?.close());

    /** A read-only call: the tree is the same after it. */
    const readOnly = async (tool: string, args: Record<string, unknown>) => {
      const before = treeHash(dir);
      const r = await s.call(tool, args);
      expect(treeHash(dir)).toEqual(before);
      return r;
    };

    it("lint_check and explain_rules without path use the single allowed root", async () => {
      const own = JSON.parse(
        spawnSync(
          path.join(TOOLS_VENV_BIN, "ruff"),
          ["check", "--isolated", "--output-format", "json", "."],
          {
            cwd: dir,
            encoding: "utf8",
          },
        ).stdout,
      ) as { code: string }[];
      const r = await readOnly("lint_check", {});
      expect(r).toMatchObject({ success: true, passed: false, finding_count: own.length });
      expect((r.findings as { path: string }[]).map((f) => f.path)).toEqual(["src/a.py", "src/a.py"]);
      const e = await readOnly("explain_rules", { rules: ["F401"] });
      expect(e, JSON.stringify(e)).toMatchObject({ success: true, linter: "ruff" });
    });

    it("remediation_advice accepts a finding exactly as lint_check returned it", async () => {
      const r = await s.call("lint_check", {});
      const f = (r.findings as Record<string, unknown>[])[0] as Record<string, unknown>;
      const advice = await s.call("remediation_advice", {
        finding: { tool: f.tool, rule_id: f.rule_id, path: f.path, line: f.line, message: f.message },
      });
      expect(advice).toMatchObject({ success: true });
      expect(JSON.stringify(advice)).not.toMatch(/does not exist/);
    });

    it("lint and format_check accept the shown path back", async () => {
      for (const tool of ["lint", "format_check"]) {
        const r = await readOnly(tool, { path: "src/a.py" });
        expect(r.success, JSON.stringify(r)).toBe(true);
      }
    });
  },
);

describe.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("two allowed roots, the server outside both", () => {
  it("lint_check without path lints the project of the files given", async () => {
    const one = project("one");
    const two = project("two");
    const s = await connectStdio({
      args: ["--allowed-paths", `${one},${two}`, "--rate-limit", "false"],
      cwd: tempDir("mcq-elsewhere-"),
      env,
    });
    try {
      const r = await s.call("lint_check", { files: [path.join(two, "src", "a.py")] });
      expect(r).toMatchObject({ success: true, finding_count: 2, files: ["src/a.py"] });
      // Without files there is no project to pick: the working directory is refused, naming the allowed paths.
      const none = await s.call("lint_check", {});
      expect(none).toMatchObject({ success: false, error_type: "path_validation" });
    } finally {
      await s.close();
    }
  });
});
