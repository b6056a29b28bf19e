/**
 * A path a result shows is relative to the project root (findings/display-path.ts), run_tests' failures
 * included, and is accepted back: a `files` entry of a call on a sub-folder (where `files` is relative to
 * `path`) may also be written as a result showed it, relative to the project root. Real pytest and ruff, a
 * server started outside the project (so no working-directory fallback helps).
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

describe("paths shown and accepted back", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(path.join(FIXTURES, "python", "runtests-project"));
    s = await connectStdio({
      args: ["--allowed-paths", project, "--rate-limit", "false"],
      cwd: tempDir("mcq-away-"),
      env: { PATH: `${TOOLS_VENV_BIN}:${process.env.PATH ?? ""}`, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(async () => s?.close());

  it.skipIf(missing("pytest"))(
    "run_tests shows each failure's file relative to the project root",
    async () => {
      const r = await s.call("run_tests", { path: path.join(project, "tests") });
      expect(r).toMatchObject({ success: true, passed: false });
      const files = (r.failures as { file?: string }[]).map((f) => f.file);
      expect(files.length).toBeGreaterThan(0);
      expect(new Set(files)).toEqual(new Set(["tests/test_stock.py"]));
    },
  );

  it("a file shown relative to the project root is accepted as `files` of a call on a sub-folder", async () => {
    const tests = path.join(project, "tests");
    const asGiven = await s.call("lint", { path: tests, files: ["test_stock.py"] });
    expect(asGiven).toMatchObject({ success: true });
    const asShown = await s.call("lint", { path: tests, files: ["tests/test_stock.py"] });
    expect(asShown).toMatchObject({ success: true });
    expect(asShown.issues).toEqual(asGiven.issues);
    expect(asShown.command).toEqual(asGiven.command);
    // A file that is neither is still refused.
    const neither = await s.call("lint", { path: tests, files: ["nope/test_stock.py"] });
    expect(neither).toMatchObject({ success: false, error_type: "path_validation" });
    expect(neither.error).toBe("files does not exist: nope/test_stock.py");
  });
});
