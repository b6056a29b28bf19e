/**
 * type_check runs mypy and pyright the way the project runs them: its `[tool.mypy] files` (with
 * `strict = true`) and `[tool.pyright] include`, from the directory holding the config, even when the
 * path is a subfolder; a narrower path only filters the view. Each result is compared with the tool run
 * directly on the same fixture, and the project is left unchanged (mypy's cache goes to the server's
 * cache folder).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMypyOutput } from "../../src/adapters/python/mypy.js";
import { parsePyrightJson } from "../../src/adapters/python/pyright.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir } from "../helpers/tools.js";
import { treeHash } from "./tree-hash.js";

const FIXTURE = path.join(FIXTURES, "python", "configured-project");
const PYRIGHT = createRequire(import.meta.url).resolve("pyright");

interface Shown {
  file: string;
  line: number;
  rule_id: string;
  message: string;
}
const key = (f: Shown) => [f.file, f.line, f.rule_id, f.message].join("|");
const sorted = (fs: Shown[]) => fs.map(key).sort();

/** `mypy` as the project runs it: no arguments, in the project folder, its cache elsewhere. */
function projectMypy(project: string, cacheDir: string): Shown[] {
  let out: string;
  try {
    out = execFileSync("mypy", [], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, MYPY_CACHE_DIR: cacheDir },
    });
  } catch (err) {
    out = (err as { stdout: string }).stdout;
  }
  return parseMypyOutput(out, project);
}

function projectPyright(project: string): Shown[] {
  let out: string;
  try {
    out = execFileSync(process.execPath, [PYRIGHT, "--outputjson"], { cwd: project, encoding: "utf8" });
  } catch (err) {
    out = (err as { stdout: string }).stdout;
  }
  return parsePyrightJson(out) ?? [];
}

describe("type_check follows the project's mypy and pyright configuration", () => {
  let project: string;
  let cache: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(FIXTURE);
    cache = tempDir("mcq-xdg-");
    s = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { XDG_CACHE_HOME: cache },
    });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(cache, { recursive: true, force: true });
  });

  it.skipIf(missing("mypy"))(
    "mypy on the root checks [tool.mypy] files with strict, exactly as `mypy` run there",
    async () => {
      const before = treeHash(project);
      const direct = projectMypy(project, path.join(tempDir("mcq-mypy-direct-"), "cache"));
      expect(direct.length).toBe(3); // the fixture's point: 3 strict errors in src/, none from scripts/
      const r = await s.call("type_check", { path: ".", checker: "mypy" });
      expect(r).toMatchObject({ success: true, passed: false, returncode: 1, issue_count: 3 });
      expect(sorted(r.findings as Shown[])).toEqual(sorted(direct));
      expect(r.summary).toEqual({ errors: 3, warnings: 0, info: 0, total_in_project: 3, scope: "full" });
      expect(r.command).not.toContain(" -- ");
      expect(r.command).toContain(`--config-file ${path.join(project, "pyproject.toml")}`);
      expect(r.notes).toContainEqual(
        expect.stringMatching(
          /checked as the project runs it: pyproject\.toml \[tool\.mypy\] files = \["src"\]/,
        ),
      );
      // The cache is the server's, not the project's.
      expect(fs.readdirSync(path.join(cache, "mcp-code-quality", "mypy")).length).toBe(1);
      expect(treeHash(project)).toBe(before);
    },
  );

  it.skipIf(missing("mypy"))(
    "mypy on src/ keeps strict and runs from the config's folder; the view is filtered",
    async () => {
      const direct = projectMypy(project, path.join(tempDir("mcq-mypy-direct-"), "cache"));
      const r = await s.call("type_check", { path: "src/shop", checker: "mypy" });
      expect(r).toMatchObject({ success: true, passed: false, issue_count: 3 });
      expect(sorted(r.findings as Shown[])).toEqual(sorted(direct));
      expect(r.summary).toMatchObject({ errors: 3, total_in_project: 3, scope: "filtered" });

      const one = await s.call("type_check", { path: "src/shop/cart.py", checker: "mypy" });
      expect(one.issues).toEqual([
        'src/shop/cart.py:15:16: return-value Incompatible return value type (got "float", expected "str")',
      ]);
      expect(one.summary).toMatchObject({ errors: 1, total_in_project: 3, scope: "filtered" });
    },
  );

  it.skipIf(missing("mypy"))(
    "a path outside the configured files is checked as given, with the config",
    async () => {
      const r = await s.call("type_check", { path: "scripts", checker: "mypy" });
      expect(r.command).toContain(`-- ${path.join(project, "scripts")}`);
      expect(r.notes).toContainEqual(
        expect.stringMatching(/^scripts is outside pyproject\.toml \[tool\.mypy\]/),
      );
      // strict from the config still applies: the untyped def is reported.
      expect((r.findings as Shown[]).map((f) => f.rule_id).sort()).toEqual([
        "assignment",
        "call-arg",
        "no-untyped-call",
        "no-untyped-def",
      ]);
    },
  );

  it("pyright on the root checks [tool.pyright] include, exactly as `pyright` run there", async () => {
    const before = treeHash(project);
    const direct = projectPyright(project);
    expect(direct.length).toBe(1);
    const r = await s.call("type_check", { path: ".", checker: "pyright" });
    expect(r).toMatchObject({ success: true, passed: false, returncode: 1, issue_count: 1 });
    expect(sorted(r.findings as Shown[])).toEqual(sorted(direct));
    expect(r.summary).toMatchObject({ errors: 1, total_in_project: 1, scope: "full" });
    const sub = await s.call("type_check", { path: "src", checker: "pyright" });
    expect(sorted(sub.findings as Shown[])).toEqual(sorted(direct));
    expect(sub.summary).toMatchObject({ scope: "filtered" });
    expect(treeHash(project)).toBe(before);
  });
});
