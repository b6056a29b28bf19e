/**
 * Issue 26.14: run_tests' `failures[].line` is the failing line (pytest's crash line), not the test's `def`
 * line, however it is called: from the project root, with an absolute `path` and no `working_dir` from a
 * server started elsewhere, and from `working_dir: tests/`.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio, FIXTURES } from "../helpers/server.js";
import { copyFixture, missing, tempDir } from "../helpers/tools.js";

type Failure = { node_id: string; line: number; file: string };

describe.skipIf(missing("pytest"))("run_tests failure lines from any directory", () => {
  it("are the same lines from the root, an absolute path elsewhere, and working_dir tests/", async () => {
    const project = copyFixture(path.join(FIXTURES, "python", "tests-project"));
    const lines = (r: Record<string, unknown>) =>
      (r.failures as Failure[]).map((f) => [path.basename(f.file), f.line]).sort();
    const fromRoot = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { VIRTUAL_ENV: undefined },
    });
    let expected: unknown;
    try {
      const r = await fromRoot.call("run_tests", { path: "tests" });
      expected = lines(r);
      // The crash lines pytest itself prints (test_calc.py:23 is the failing assert, not its def line).
      expect(expected).toContainEqual(["test_calc.py", 23]);
      const inTests = await fromRoot.call("run_tests", { path: ".", working_dir: "tests" });
      expect(lines(inTests)).toEqual(expected);
    } finally {
      await fromRoot.close();
    }
    const elsewhere = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: tempDir("mcq-elsewhere-"),
      env: { VIRTUAL_ENV: undefined },
    });
    try {
      const r = await elsewhere.call("run_tests", { path: path.join(project, "tests") });
      expect(lines(r)).toEqual(expected);
    } finally {
      await elsewhere.close();
    }
  });
});
