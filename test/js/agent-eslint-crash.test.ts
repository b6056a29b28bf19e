/**
 * ESLint rules that crash or fix in a loop (issue 16): a crash is listed in that file's errors while the
 * other rules still report and fix; a loop leaves the file unchanged with the loop in its errors; a crash
 * on inline code fails the call.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";

const PROJECT = path.join(FIXTURES, "js", "agent-eslint-crash");

interface FileEntry {
  file: string;
  status: string;
  errors?: string[];
  messages: { rule_id: string | null }[];
}
const entry = (r: Record<string, unknown>, name: string) =>
  (r.files as FileEntry[]).find((f) => f.file === name || f.file.endsWith(`/${name}`));

describe("eslint: crashing rules and fix loops", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(PROJECT);
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("lint: the crash is in crash.js's errors, the other rules still report there and elsewhere", async () => {
    const r = await s.call("lint", { path: dir, linter: "eslint" });
    expect(r.success, JSON.stringify(r)).toBe(true);
    const crash = entry(r, "crash.js");
    expect(crash?.errors).toEqual([
      expect.stringContaining("rule local/crash crashed: the crash rule fell over"),
    ]);
    expect(crash?.messages.map((m) => m.rule_id)).toEqual(["prefer-const"]);
    expect(entry(r, "ok.js")?.messages.map((m) => m.rule_id)).toEqual(["prefer-const"]);
    expect(entry(r, "ok.js")?.errors).toBeUndefined();
  });

  it("lint_fix: other rules' fixes still apply beside a crash; a fix loop leaves the file unchanged", async () => {
    const loopBefore = fs.readFileSync(path.join(dir, "loop.js"), "utf8");
    const r = await s.call("lint_fix", { path: dir, linter: "eslint" });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(fs.readFileSync(path.join(dir, "crash.js"), "utf8")).toBe("const boom = 1;\nexport { boom };\n");
    expect(entry(r, "crash.js")?.errors).toEqual([expect.stringContaining("local/crash crashed")]);
    expect(fs.readFileSync(path.join(dir, "loop.js"), "utf8")).toBe(loopBefore);
    const loop = entry(r, "loop.js");
    expect(loop?.errors).toEqual([expect.stringContaining("fix loop")]);
    expect(loop?.messages.map((m) => m.rule_id)).toEqual(["local/single"]);
    expect(fs.readFileSync(path.join(dir, "ok.js"), "utf8")).toBe("const fine = 1;\nexport { fine };\n");
  });

  it("a crash on inline code fails the call and writes nothing", async () => {
    const r = await s.call("lint_fix", {
      path: path.join(dir, "inline.js"),
      linter: "eslint",
      source_code: "let boom = 2;\n",
    });
    expect(r.success).toBe(false);
    expect(String(r.error)).toContain("the crash rule fell over");
    expect(fs.existsSync(path.join(dir, "inline.js"))).toBe(false);
  });
});
