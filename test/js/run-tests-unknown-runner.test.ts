/**
 * run_tests on a JavaScript project whose test script runs a runner run_tests does not run (sindresorhus/ky:
 * `"test": "xo && npm run build && ava"`) said "no test script or vitest/jest dependency in package.json",
 * which is not so: it now quotes the script and says which runners it runs. A project with no test script
 * still says that. Through the real server.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

function project(scripts: Record<string, string>): string {
  const dir = tempDir("mcq-js-runner-");
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "p", version: "1.0.0", type: "module", scripts }, null, 2),
  );
  fs.mkdirSync(path.join(dir, "test"));
  fs.writeFileSync(path.join(dir, "index.js"), "export const one = () => 1;\n");
  fs.writeFileSync(
    path.join(dir, "test", "main.js"),
    'import test from "ava";\n\ntest("one", (t) => t.is(1, 1));\n',
  );
  return dir;
}

describe("run_tests on a JavaScript project without a runner it runs", () => {
  const ava = project({ test: "xo && npm run build && ava" });
  const none = project({ build: "tsc" });
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio({ args: ["--allowed-paths", [ava, none].join(",")] });
  });
  afterAll(() => s?.close());

  it("quotes the test script it does not run, and names the runners it runs", async () => {
    const r = await s.call("run_tests", { path: ava });
    expect(r).toMatchObject({ success: true, nothing_checked: true });
    expect(JSON.stringify(r.notes)).toContain(
      `no test runner run_tests runs in ${ava} (javascript): the test script of ${path.join(ava, "package.json")} runs \`xo && npm run build && ava\`; run_tests runs vitest, jest and node --test (and tstyche after them)`,
    );
  });

  it("says there is no test script where there is none", async () => {
    const r = await s.call("run_tests", { path: none });
    expect(JSON.stringify(r.notes)).toContain("no test script or vitest/jest dependency in package.json");
  });
});
