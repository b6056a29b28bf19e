/**
 * A transaction that fails rolls back what it wrote. When someone else moved the file's folder away in the
 * meantime (a fix never removes folders), the automatic restore leaves it so: it does not create a new folder
 * of that name to put the old bytes in. The symlink-swap race test met this: a restore re-created the folder
 * its attacker had just renamed. An explicit, forced `rollback` still re-creates it (the user asked for the file).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { Engine } from "../../src/engine/engine.js";
import { ToolError } from "../../src/errors.js";
import { runTransaction } from "../../src/fix/transaction.js";
import { silentLogger } from "../../src/log.js";
import { tempDir } from "../helpers/tools.js";

function project(): string {
  const proj = tempDir("mcq-folder-gone-");
  fs.mkdirSync(path.join(proj, "sub"));
  fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
  fs.writeFileSync(path.join(proj, "sub", "a.py"), "before\n");
  return proj;
}

function engineFor(proj: string): Engine {
  const audit = path.join(tempDir("mcq-folder-gone-audit-"), "audit.log");
  const config = loadConfig(["--allowed-paths", proj, "--audit-log", audit], {}, proj);
  return new Engine(config, silentLogger, []);
}

describe("an automatic restore whose folder was moved away", () => {
  it("leaves the move as it is and reports the file as a conflict", async () => {
    const proj = project();
    const engine = engineFor(proj);
    const ctx = engine["context"]("lint_fix", new Set(), { value: false }, undefined);
    const file = path.join(proj, "sub", "a.py");
    let thrown: unknown;
    try {
      await runTransaction(ctx, {
        tool: "lint_fix",
        target: proj,
        candidates: async () => [file],
        work: async () => {
          // A tool writes the file (unrecorded, as an external tool does), then someone else moves the folder.
          fs.writeFileSync(file, "after\n");
          fs.renameSync(path.join(proj, "sub"), path.join(proj, "moved"));
          throw new ToolError("tool_error", "the tool failed");
        },
      });
    } catch (err) {
      thrown = err;
    } finally {
      await engine.close();
    }
    expect(thrown).toBeInstanceOf(ToolError);
    expect((thrown as ToolError).extra.transaction).toMatchObject({
      result: "error",
      restored_files: [],
      conflicts: ["sub/a.py"],
    });
    expect(fs.existsSync(path.join(proj, "sub"))).toBe(false);
    expect(fs.readFileSync(path.join(proj, "moved", "a.py"), "utf8")).toBe("after\n");
  });

  it("still restores a file whose folder is there", async () => {
    const proj = project();
    const engine = engineFor(proj);
    const ctx = engine["context"]("lint_fix", new Set(), { value: false }, undefined);
    const file = path.join(proj, "sub", "a.py");
    let thrown: unknown;
    try {
      await runTransaction(ctx, {
        tool: "lint_fix",
        target: proj,
        candidates: async () => [file],
        work: async () => {
          fs.writeFileSync(file, "after\n");
          throw new ToolError("tool_error", "the tool failed");
        },
      });
    } catch (err) {
      thrown = err;
    } finally {
      await engine.close();
    }
    expect((thrown as ToolError).extra.transaction).toMatchObject({
      result: "error",
      restored_files: ["sub/a.py"],
    });
    expect(fs.readFileSync(file, "utf8")).toBe("before\n");
  });
});
