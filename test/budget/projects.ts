/** The projects and the pager the budget tests share (issue 30). */
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import type { Connected } from "../helpers/server.js";

export type Json = Record<string, unknown>;
export const tokens = (r: unknown) => Math.ceil(Buffer.byteLength(JSON.stringify(r)) / 4);

/** `files` files (200: 5,000 findings), each with 20 unused imports (F401) and 5 `== None` (E711). */
export function pythonProject(dir: string, files = 200): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "pyproject.toml"),
    "[project]\nname = 'big'\nversion = '0'\n\n[tool.ruff.lint]\nselect = ['E7', 'F']\n",
  );
  for (let i = 0; i < files; i++) {
    const imports = Array.from({ length: 20 }, (_, j) => `import mod_${j}\n`).join("");
    const checks = ["len", "print", "abs", "min", "max"].map((b) => `if ${b} == None:\n    pass\n`).join("");
    fs.writeFileSync(path.join(dir, `m${String(i).padStart(3, "0")}.py`), `${imports}${checks}`);
  }
}

/** 150 JavaScript and 150 TypeScript files Prettier cannot parse (a note each), and 2 it would reformat. */
export function prettierProject(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  // Formatted as Prettier formats it: its scope is the project's, package.json included.
  fs.writeFileSync(path.join(dir, "package.json"), '{\n  "name": "fmt",\n  "private": true\n}\n');
  // A project that uses Prettier (format_check runs it only there, issue 26).
  fs.writeFileSync(path.join(dir, ".prettierrc.json"), "{}\n");
  for (let i = 0; i < 150; i++) {
    fs.writeFileSync(path.join(dir, `broken_${String(i).padStart(3, "0")}.js`), "function ( {\n");
    fs.writeFileSync(path.join(dir, `broken_${String(i).padStart(3, "0")}.ts`), "const = ;\n");
  }
  fs.writeFileSync(path.join(dir, "ugly.js"), "const a  =  1\n");
  fs.writeFileSync(path.join(dir, "ugly.ts"), "const b  :  number=  1\n");
}

/** Pages of `tool` from offset 0 with `limit`, until next_offset runs out; `list` picks a page's entries. */
export async function pageThrough(
  s: Connected,
  tool: string,
  args: Json,
  limit: number,
  check: (r: Json) => void,
  list: (r: Json) => unknown[],
) {
  const seen: unknown[] = [];
  let offset: number | undefined = 0;
  let calls = 0;
  while (offset !== undefined) {
    const r = await s.call(tool, { ...args, offset, limit });
    check(r);
    const page = list(r);
    expect(page.length).toBeGreaterThan(0);
    seen.push(...page);
    offset = r.next_offset as number | undefined;
    // The next page starts at the first finding not shown.
    if (offset !== undefined) expect(offset).toBe(seen.length);
    expect(++calls).toBeLessThan(200);
  }
  return seen;
}
