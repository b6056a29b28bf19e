/**
 * audit_dependencies with the real pip-audit (installed by scripts/install-tools.sh). pip-audit resolves the
 * requirements through pip (the package index is reachable here), then asks a vulnerability service: the
 * default one (PyPI's JSON API) has no data on this machine's mirror, and OSV is unreachable. Neither is a pass.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";

const FIXTURE = path.join(FIXTURES, "python", "pip-audit-project");
const PATH_WITH_TOOLS = `${TOOLS_VENV_BIN}:${process.env.PATH ?? ""}`;

describe.skipIf(missing("pip-audit", [TOOLS_VENV_BIN]))("audit_dependencies with the real pip-audit", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(FIXTURE);
    s = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { PATH: PATH_WITH_TOOLS, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(async () => s?.close());

  it("a run whose service knew none of the packages is not a pass, and says so", async () => {
    const r = await s.call("audit_dependencies", { requirements_file: "requirements.txt" });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      auditor: "pip-audit",
      command: `pip-audit -r ${path.join(project, "requirements.txt")} --format json`,
      vulnerability_count: 0,
    });
    const notes = r.notes as string[];
    expect(notes[0]).toMatch(/^pip-audit audited none of the \d+ dependencies/);
    expect(notes).toContain(
      "not audited: requests: Dependency not found on PyPI and could not be audited: requests (2.19.0)",
    );
    expect(notes.some((n) => n.startsWith(`pip-audit from PATH (${TOOLS_VENV_BIN}/pip-audit)`))).toBe(true);
  });
});
