/**
 * Issue 30, item 9: the warm tsc worker listed three TS2451 of 1,974 twice on the second call over an
 * unchanged project with redeclarations across files. A warm call lists what a cold one does and what
 * `tsc --noEmit` prints, diagnostic for diagnostic: gathered as tsc gathers them (no semantic errors while
 * there are syntax errors) and sorted and deduplicated as it does.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const TSC = path.join(REPO_ROOT, "node_modules", ".bin", "tsc");
const NAMES = ["shared", "count", "label", "state", "item", "handler", "x1"];

/** 60 script files declaring the same globals with let, const, var, function and class (seeded). */
function redeclarations(dir: string): void {
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "tsconfig.json"),
    '{ "compilerOptions": { "strict": true, "noEmit": true, "target": "es2022", "types": [] }, "include": ["src"] }\n',
  );
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 60; i++) {
    const names = [...NAMES].sort(() => (next() % 3) - 1).slice(0, 3);
    const lines = names.map((n) => {
      const kind = ["let", "const", "var", "function", "class"][next() % 5];
      if (kind === "function") return `function ${n}() { return ${i}; }`;
      if (kind === "class") return `class ${n} {}`;
      return `${kind} ${n} = ${i};`;
    });
    if (i % 11 === 0) lines.push("declare global { let shared: number; }", "export {};");
    fs.writeFileSync(path.join(dir, "src", `f${String(i).padStart(3, "0")}.ts`), `${lines.join("\n")}\n`);
  }
}

/** `tsc --noEmit`'s diagnostics as `file:line:col: TScode message`, in its order. */
function tscSays(dir: string): string[] {
  const run = spawnSync(TSC, ["--noEmit", "--pretty", "false"], { cwd: dir, encoding: "utf8" });
  return run.stdout
    .split("\n")
    .filter((l) => /^\S.*\(\d+,\d+\): error TS\d+: /.test(l))
    .map((l) => {
      const m = /^(.*)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(l)!;
      return `${m[1]}:${m[2]}:${m[3]}: ${m[4]} ${m[5]}`;
    });
}

describe("the warm tsc worker", () => {
  let root: string;
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    root = tempDir("mcq-tsc-warm-");
    dir = path.join(root, "redeclared");
    redeclarations(dir);
    s = await connectStdio({ args: ["--allowed-paths", root, "--rate-limit", "false"], cwd: dir });
  });
  afterAll(() => s?.close());

  const issues = async () => {
    const r = await s.call("type_check", {
      path: ".",
      checker: "tsc",
      max_result_tokens: 250_000,
      limit: 500,
    });
    const all: string[] = [...(r.issues as string[])];
    let offset = r.next_offset as number | undefined;
    while (offset !== undefined) {
      const page = await s.call("type_check", {
        path: ".",
        checker: "tsc",
        max_result_tokens: 250_000,
        offset,
        limit: 500,
      });
      all.push(...(page.issues as string[]));
      offset = page.next_offset as number | undefined;
    }
    return { count: r.issue_count, all };
  };

  it("lists what tsc --noEmit prints, cold, warm, and warm after an edit undone", async () => {
    const expected = tscSays(dir);
    expect(expected.length).toBeGreaterThan(100);
    expect(new Set(expected).size).toBe(expected.length);
    const cold = await issues();
    expect(cold.count).toBe(expected.length);
    expect([...cold.all].sort()).toEqual([...expected].sort());
    const warm = await issues();
    expect(warm.count).toBe(expected.length);
    expect(warm.all).toEqual(cold.all);
    // An edit and its undoing: the builder re-checks the file and those affected, and still agrees.
    const file = path.join(dir, "src", "f005.ts");
    const text = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, `${text}let extra = 1;\n`);
    await issues();
    fs.writeFileSync(file, text);
    const again = await issues();
    expect(again.all).toEqual(cold.all);
  });

  it("reports only the syntax errors while there are any, as tsc does", async () => {
    const bad = path.join(root, "broken");
    redeclarations(bad);
    fs.writeFileSync(path.join(bad, "src", "broken.ts"), "const = ;\n");
    const r = await s.call("type_check", { path: bad, checker: "tsc" });
    expect(r.issues).toEqual(tscSays(bad));
    expect((r.issues as string[]).every((i) => i.startsWith("src/broken.ts:"))).toBe(true);
  });
});
