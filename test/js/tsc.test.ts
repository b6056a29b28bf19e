/** type_check with tsc through the MCP client: the bundled TypeScript in its warm worker. */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, REPO_ROOT, type Connected } from "../helpers/server.js";
import { copyFixture, tempDir } from "../helpers/tools.js";

type Json = Record<string, unknown>;

const ALL_ERRORS = [
  "src/a.ts:4:14: TS2322 Type 'number' is not assignable to type 'string'.",
  "src/b.ts:3:29: TS2345 Argument of type 'string' is not assignable to parameter of type 'number'.",
  "src/c.ts:2:28: TS2339 Property 'toUpperCase' does not exist on type '1'.",
];

describe("type_check with tsc", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(path.join(FIXTURES, "js", "type-errors"));
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
  });
  afterAll(() => s.close());

  it("is the default checker for a directory with tsconfig.json and reports every file's errors", async () => {
    const r = await s.call("type_check", { path: "." });
    expect(r).toMatchObject({ success: true, passed: false, checker: "tsc" });
    expect(r.issues).toEqual(ALL_ERRORS);
    // Findings carry their display path (project-root relative) and fingerprint (docs/sarif.md).
    expect((r.findings as Json[])[0]).toEqual({
      tool: "tsc",
      file: path.join(dir, "src", "a.ts"),
      path: "src/a.ts",
      fingerprint: expect.stringMatching(/^mcq\/v1:[0-9a-f]{32}:\d+$/),
      line: 4,
      column: 14,
      end_line: 4,
      end_column: 19,
      rule_id: "TS2322",
      severity: "error",
      message: "Type 'number' is not assignable to type 'string'.",
    });
    expect(r.summary).toEqual({ errors: 3, warnings: 0, info: 0, total_in_project: 3, scope: "full" });
    expect(r.notes).toContain(
      "typescript 6.0.3 bundled with mcp-code-quality (the project has none in node_modules)",
    );
  });

  it("files filters what is shown while the whole project is checked", async () => {
    const r = await s.call("type_check", { path: ".", files: ["src/c.ts", "src/ok.ts"] });
    expect(r.issues).toEqual([ALL_ERRORS[2]]);
    expect(r.summary).toEqual({ errors: 1, warnings: 0, info: 0, total_in_project: 3, scope: "filtered" });
  });

  it("sees a body-only edit and an export-changing edit, in the same warm worker", async () => {
    const first = await s.call("type_check", { path: "." });
    const pid = /worker pid (\d+)/.exec((first.notes as string[]).join("\n"))?.[1];
    // Body-only: c.ts's error goes away.
    fs.writeFileSync(
      path.join(dir, "src", "c.ts"),
      'const count = "one";\nexport const shout = count.toUpperCase();\n',
    );
    const body = await s.call("type_check", { path: "." });
    expect(body.issues).toEqual([ALL_ERRORS[0], ALL_ERRORS[1]]);
    // Export change: double now takes a string, so b.ts is fine and a.ts's call breaks instead.
    fs.writeFileSync(
      path.join(dir, "src", "a.ts"),
      "export function double(n: string): string {\n  return n + n;\n}\nexport const label: string = double(2);\n",
    );
    const exported = await s.call("type_check", { path: "." });
    expect(exported.issues).toEqual([
      "src/a.ts:4:37: TS2345 Argument of type 'number' is not assignable to parameter of type 'string'.",
    ]);
    expect((exported.notes as string[]).join("\n")).toContain(`warm tsc worker pid ${pid}`);
  });

  it("a new file under include is picked up; a tsconfig change restarts the worker", async () => {
    fs.writeFileSync(path.join(dir, "src", "d.ts"), "export const d: boolean = 1;\n");
    const added = await s.call("type_check", { path: ".", files: ["src/d.ts"] });
    expect(added.issues).toEqual([
      "src/d.ts:1:14: TS2322 Type 'number' is not assignable to type 'boolean'.",
    ]);
    const tsconfig = path.join(dir, "tsconfig.json");
    const config = JSON.parse(fs.readFileSync(tsconfig, "utf8")) as { exclude?: string[] };
    config.exclude = ["src/d.ts"];
    fs.writeFileSync(tsconfig, JSON.stringify(config));
    const excluded = await s.call("type_check", { path: "." });
    expect((excluded.issues as string[]).some((i) => i.startsWith("src/d.ts"))).toBe(false);
    expect((excluded.notes as string[]).join("\n")).toContain("a watched config file changed");
  });

  it("an edit to a config the tsconfig extends restarts the worker and applies", async () => {
    const base = path.join(dir, "configs", "base.json");
    const config = JSON.parse(fs.readFileSync(base, "utf8")) as { compilerOptions: Record<string, unknown> };
    config.compilerOptions.noUnusedLocals = true;
    fs.writeFileSync(base, JSON.stringify(config));
    const r = await s.call("type_check", { path: ".", files: ["src/ok.ts"] });
    expect(r.issues).toEqual(["src/ok.ts:1:7: TS6133 'spare' is declared but its value is never read."]);
    expect((r.notes as string[]).join("\n")).toContain("a watched config file changed");
  });

  it("a config that does not exist is refused before anything runs", async () => {
    const r = await s.call("type_check", { path: "src", checker: "tsc", config: "missing.json" });
    expect(r).toMatchObject({ success: false, error_type: "path_validation" });
  });
});

describe("the TypeScript worker's V8 code cache", () => {
  it("is written once to the server's cache by the server's producer and used by the next fresh worker", async () => {
    const dir = copyFixture(path.join(FIXTURES, "js", "type-errors"));
    const cache = tempDir("mcq-xdg-");
    const codeCache = path.join(cache, "mcp-code-quality", "v8-code-cache");
    const fresh = async () => {
      const s = await connectStdio({
        args: ["--allowed-paths", dir],
        cwd: dir,
        env: { XDG_CACHE_HOME: cache },
      });
      try {
        return await s.call("type_check", { path: "." });
      } finally {
        await s.close();
      }
    };
    try {
      expect((await fresh()).issues).toEqual(ALL_ERRORS);
      const [file, ...others] = fs.readdirSync(codeCache);
      expect(others).toEqual([]); // one cache file, no temp file left
      expect(file).toMatch(/^[0-9a-f]{40}\.bin$/);
      const written = fs.statSync(path.join(codeCache, file!));
      expect(written.size).toBeGreaterThan(100_000);
      expect(written.mode & 0o777).toBe(0o600);
      // A worker whose cache was accepted reports no miss, so nothing is written again.
      expect((await fresh()).issues).toEqual(ALL_ERRORS);
      expect(fs.readdirSync(codeCache)).toEqual([file]);
      expect(fs.statSync(path.join(codeCache, file!)).mtimeMs).toBe(written.mtimeMs);
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});

describe("type_check with tsc on checked JavaScript", () => {
  it("reports what tsc reports, JSDoc types included (the worker parses JSDoc as tsc does)", async () => {
    const dir = tempDir("mcq-tsc-jsdoc-");
    fs.mkdirSync(path.join(dir, "src"));
    fs.writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { allowJs: true, checkJs: true, strict: true, noEmit: true },
        include: ["src"],
      }),
    );
    fs.writeFileSync(
      path.join(dir, "src", "lib.js"),
      "/**\n * @param {number} n\n * @returns {number}\n */\nexport function twice(n) {\n  return n * 2;\n}\n",
    );
    fs.writeFileSync(
      path.join(dir, "src", "use.js"),
      'import { twice } from "./lib.js";\n\n/** @type {string} */\nconst label = twice(2);\ntwice("x");\nexport { label };\n',
    );
    fs.writeFileSync(
      path.join(dir, "src", "typed.ts"),
      "/** @param {string} n a JSDoc type a .ts file ignores */\nexport const id = (n: number): number => n;\n",
    );
    const direct = spawnSync(
      process.execPath,
      [path.join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "--noEmit", "--pretty", "false", "-p", dir],
      { cwd: dir, encoding: "utf8" },
    );
    const fromTsc = direct.stdout
      .trim()
      .split("\n")
      .map((l) => /^(.+)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(l))
      .map((m) => `${m?.[1]}:${m?.[2]}:${m?.[3]}: ${m?.[4]} ${m?.[5]}`);
    expect(fromTsc.length).toBe(2);
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const r = await s.call("type_check", { path: "." });
      expect(r.issues).toEqual(fromTsc);
    } finally {
      await s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
