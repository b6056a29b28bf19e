/** type_check with the real ty (installed by scripts/install-tools.sh), compared with ty run directly. */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";

const FIXTURE = path.join(FIXTURES, "python", "typecheck-project");
const TY = path.join(TOOLS_VENV_BIN, "ty");

describe.skipIf(missing("ty", [TOOLS_VENV_BIN]))("type_check with ty", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(FIXTURE);
    s = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { PATH: `${TOOLS_VENV_BIN}:${process.env.PATH ?? ""}`, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(async () => s?.close());

  it("is the default Python checker and reports what ty itself prints", async () => {
    const direct = spawnSync(TY, ["check", "--output-format", "concise", "--", project], {
      cwd: project,
      encoding: "utf8",
    });
    const directLines = direct.stdout.split("\n").filter((l) => /^\S+:\d+:\d+: /.test(l));
    expect(directLines).toHaveLength(2);

    const r = await s.call("type_check", { path: "." });
    expect(r).toMatchObject({ success: true, passed: false, checker: "ty", returncode: 1, issue_count: 2 });
    expect(r.command).toBe(`ty check --output-format concise -- ${project}`);
    // ty prints `file:line:col: error[rule] message`; the seed 000 issue string is `file:line:col: rule message`.
    expect(r.issues).toEqual(
      directLines.map((l) => l.replace(/^(\S+:\d+:\d+): error\[([\w-]+)\] /, "$1: $2 ")),
    );
    expect((r.findings as Record<string, unknown>[])[0]).toMatchObject({
      tool: "ty",
      file: path.join(project, "pkg", "bad.py"),
      line: 5,
      column: 14,
      rule_id: "invalid-assignment",
      severity: "error",
    });
    expect(r.notes).toEqual([`ty from PATH (${TY})`]);
  });

  it("a clean file passes", async () => {
    const r = await s.call("type_check", { path: "pkg/good.py" });
    expect(r).toMatchObject({ success: true, passed: true, checker: "ty", returncode: 0, issue_count: 0 });
  });
});
