/**
 * get_audit_log with a path returns the project's `.mcp-cache/audit.jsonl` (and rotated sidecars). If any of
 * those (or `.mcp-cache` itself) is a symlink out of the project, the tool must not return what it points
 * at: that would disclose a file outside the allowed paths (here another project's transaction audit).
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const SECRET = {
  timestamp: "2026-01-01T00:00:00.000Z",
  run_id: "secret-run",
  tool: "lint_fix",
  result: "commit",
  files_written: ["secret.py"],
};

function layout(): { outer: string; proj: string; secretLog: string } {
  const outer = tempDir("mcq-audit-link-");
  const proj = path.join(outer, "proj");
  fs.mkdirSync(proj);
  fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
  const other = path.join(outer, "other-project", ".mcp-cache");
  fs.mkdirSync(other, { recursive: true });
  const secretLog = path.join(other, "audit.jsonl");
  fs.writeFileSync(secretLog, `${JSON.stringify(SECRET)}\n`);
  return { outer, proj, secretLog };
}

describe("get_audit_log never returns a file linked from outside the project", () => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  const call = async (proj: string) => {
    s = await connectStdio({ args: ["--allowed-paths", proj, "--rate-limit", "false"], cwd: proj });
    return s.call("get_audit_log", { path: "." });
  };

  it("a .mcp-cache that is a symlink gets path_validation", async () => {
    const { proj, secretLog } = layout();
    fs.symlinkSync(path.dirname(secretLog), path.join(proj, ".mcp-cache"));
    const r = await call(proj);
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("path_validation");
  });

  it("an audit.jsonl that is a symlink gets path_validation", async () => {
    const { proj, secretLog } = layout();
    fs.mkdirSync(path.join(proj, ".mcp-cache"));
    fs.symlinkSync(secretLog, path.join(proj, ".mcp-cache", "audit.jsonl"));
    const r = await call(proj);
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("path_validation");
  });

  it("a rotated sidecar that is a symlink is not read", async () => {
    const { proj, secretLog } = layout();
    fs.mkdirSync(path.join(proj, ".mcp-cache"));
    fs.symlinkSync(secretLog, path.join(proj, ".mcp-cache", "audit.jsonl.2026-01-01T00-00-00-000Z.jsonl"));
    const r = await call(proj);
    expect(r.success).toBe(true);
    expect(r.entries).toEqual([]);
  });
});
