/**
 * Issue 30: results fit the agent's context without holes. Paging under a small --max-result-bytes sees every
 * finding exactly once (a page the byte cap would cut is cut by the budget, and next_offset is the first
 * finding not shown); ESLint's files[] holds the page's files on every page, past the 500th file too; dry
 * runs of 5,000 findings keep within max_result_tokens, diffs included (cut per file, paged by file), and
 * their issue_count is what can be paged; context_lines snippets, notes and lint_check's advice are counted.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

type Json = Record<string, unknown>;
const tokens = (r: unknown) => Math.ceil(Buffer.byteLength(JSON.stringify(r)) / 4);
const bytes = (r: unknown) => Buffer.byteLength(JSON.stringify(r));
const noRuff = missing("ruff", [TOOLS_VENV_BIN]);
const CAP = 16 * 1024;

/** `files` files (200: 5,000 findings), each with 20 unused imports (F401) and 5 `== None` (E711). */
function pythonProject(dir: string, files = 200): void {
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

/** 600 files with 2 ESLint findings each (prefer-const error, no-unused-vars warning): past files[]' 500. */
function eslintProject(dir: string): void {
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "many", "private": true, "type": "module" }\n');
  fs.writeFileSync(
    path.join(dir, "eslint.config.js"),
    'export default [{ files: ["**/*.js"], rules: { "prefer-const": "error", "no-unused-vars": "warn" } }];\n',
  );
  for (let i = 0; i < 600; i++)
    fs.writeFileSync(path.join(dir, "src", `f${String(i).padStart(3, "0")}.js`), `let v${i} = ${i};\n`);
}

/** 150 JavaScript and 150 TypeScript files Prettier cannot parse (a note each), and 2 it would reformat. */
function prettierProject(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "fmt", "private": true }\n');
  for (let i = 0; i < 150; i++) {
    fs.writeFileSync(path.join(dir, `broken_${String(i).padStart(3, "0")}.js`), "function ( {\n");
    fs.writeFileSync(path.join(dir, `broken_${String(i).padStart(3, "0")}.ts`), "const = ;\n");
  }
  fs.writeFileSync(path.join(dir, "ugly.js"), "const a  =  1\n");
  fs.writeFileSync(path.join(dir, "ugly.ts"), "const b  :  number=  1\n");
}

/** Pages of `tool` from offset 0 with `limit`, until next_offset runs out; `list` picks a page's entries. */
async function pageThrough(
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

describe("paging under a small --max-result-bytes", () => {
  let root: string;
  let s: Connected;
  beforeAll(async () => {
    root = tempDir("mcq-caps-");
    pythonProject(path.join(root, "py"));
    eslintProject(path.join(root, "js"));
    s = await connectStdio({
      args: ["--allowed-paths", root, "--rate-limit", "false", "--max-result-bytes", String(CAP)],
      cwd: root,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin`, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it.skipIf(noRuff)(
    "ruff, 5,000 findings, limit 500 and the largest token budget: every finding once",
    async () => {
      const issues = await pageThrough(
        s,
        "lint",
        { path: path.join(root, "py"), max_result_tokens: 250_000 },
        500,
        (r) => {
          expect(bytes(r)).toBeLessThanOrEqual(CAP);
          // The budget cut the page, not the byte cap.
          expect(r.result_capped).toBeUndefined();
          expect(r.issue_count).toBe(5000);
        },
        (r) => r.issues as unknown[],
      );
      expect(issues).toHaveLength(5000);
      expect(new Set(issues).size).toBe(5000);
    },
  );

  it("ESLint, 1,200 findings in 600 files: files[] is the page's files on every page", async () => {
    const dir = path.join(root, "js");
    const messages = await pageThrough(
      s,
      "lint",
      { path: dir, linter: "eslint" },
      100,
      (r) => {
        expect(bytes(r)).toBeLessThanOrEqual(CAP);
        const files = r.files as { file: string; messages: unknown[] }[];
        const listed = files.reduce((n, f) => n + f.messages.length, 0);
        // Every listed file has listed messages, and they are exactly the page's findings.
        expect(files.every((f) => f.messages.length > 0)).toBe(true);
        expect(listed).toBe((r.issues as unknown[]).length);
        // 600 files and eslint.config.js (clean) are in scope.
        expect(r.summary).toMatchObject({ totalFiles: 601, totalErrors: 600, totalWarnings: 600 });
      },
      (r) =>
        (r.files as { file: string; messages: { line: number; rule_id: string }[] }[]).flatMap((f) =>
          f.messages.map((m) => `${f.file}:${m.line}:${m.rule_id}`),
        ),
    );
    expect(messages).toHaveLength(1200);
    expect(new Set(messages).size).toBe(1200);
  });
});

describe("dry runs, snippets, notes and advice within max_result_tokens", () => {
  let root: string;
  let s: Connected;
  beforeAll(async () => {
    root = tempDir("mcq-dry-");
    pythonProject(path.join(root, "py"));
    prettierProject(path.join(root, "fmt"));
    s = await connectStdio({
      args: ["--allowed-paths", root, "--rate-limit", "false"],
      cwd: root,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin`, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it.skipIf(noRuff)("lint_fix dry run of 5,000 findings: within 8,000 tokens, diffs counted", async () => {
    const dir = path.join(root, "py");
    const r = await s.call("lint_fix", { path: dir, dry_run: true, safety: "unsafe" });
    expect(tokens(r)).toBeLessThanOrEqual(8000);
    expect(r.diff_file_count).toBe(200);
    expect(r.diff_files_listed as number).toBeLessThan(200);
    expect(r.next_diff_offset).toBe(r.diff_files_listed);
    // Diffs are listed once (in `diff`), not again per file; the changed files are counted in full.
    expect((r.files as Json[]).every((f) => f.diff === undefined)).toBe(true);
    expect(r.changed_count).toBe(200);
    // Nothing was written.
    expect(fs.readFileSync(path.join(dir, "m000.py"), "utf8")).toMatch(/^import mod_0\n/);
  });

  it.skipIf(noRuff)(
    "a dry run pages through every file's diff once, and through every problem left",
    async () => {
      const dir = path.join(root, "small");
      pythonProject(dir, 12);
      const args = { path: dir, dry_run: true, max_result_tokens: 1000 };
      const names: string[] = [];
      let offset: number | undefined = 0;
      while (offset !== undefined) {
        const page = await s.call("lint_fix", { ...args, diff_offset: offset });
        expect(tokens(page)).toBeLessThanOrEqual(1000);
        names.push(...[...(page.diff as string).matchAll(/^\+\+\+ (\S+)/gm)].map((m) => m[1] as string));
        offset = page.next_diff_offset as number | undefined;
        if (offset !== undefined) expect(offset).toBe(names.length);
        expect(names.length).toBeLessThanOrEqual(12);
      }
      expect(new Set(names).size).toBe(12);
      expect(names).toHaveLength(12);
      // ruff's safe fixes take the unused imports; the 60 `== None` are left, and all of them can be paged.
      const left = await pageThrough(
        s,
        "lint_fix",
        args,
        500,
        (r) => {
          expect(tokens(r)).toBeLessThanOrEqual(1000);
          expect(r.issue_count).toBe(60);
        },
        (r) => r.issues as unknown[],
      );
      expect(left).toHaveLength(60);
      expect(new Set(left).size).toBe(60);
    },
  );

  it.skipIf(noRuff)("fix_all and autoformat dry runs: within the budget, diffs counted", async () => {
    const dir = path.join(root, "py");
    const all = await s.call("fix_all", {
      path: dir,
      dry_run: true,
      safety: "unsafe",
      max_result_tokens: 4000,
    });
    expect(tokens(all)).toBeLessThanOrEqual(4000);
    expect(all.diff_file_count as number).toBeGreaterThanOrEqual(200);
    const fmt = await s.call("autoformat", { path: dir, dry_run: true, max_result_tokens: 2000 });
    expect(tokens(fmt)).toBeLessThanOrEqual(2000);
  });

  it.skipIf(noRuff)("context_lines: snippets are counted, so fewer findings fit", async () => {
    const dir = path.join(root, "py");
    const plain = await s.call("lint", { path: dir, max_result_tokens: 4000 });
    const snippets = await s.call("lint", { path: dir, max_result_tokens: 4000, context_lines: 5 });
    expect(tokens(plain)).toBeLessThanOrEqual(4000);
    expect(tokens(snippets)).toBeLessThanOrEqual(4000);
    expect((snippets.issues as unknown[]).length).toBeLessThan((plain.issues as unknown[]).length);
    expect(snippets.findings).toHaveLength((snippets.issues as unknown[]).length);
  });

  it("format_check: 300 Prettier notes are budgeted, said once, and prettier is named once", async () => {
    const r = await s.call("format_check", { path: path.join(root, "fmt"), max_result_tokens: 2000 });
    expect(tokens(r)).toBeLessThanOrEqual(2000);
    expect(r.summary_text).toBe("prettier: 2 files would be reformatted");
    const notes = r.notes as string[];
    expect(new Set(notes).size).toBe(notes.length);
    expect(notes.at(-1)).toMatch(
      /^\.\.\. \d+ more note\(s\) left out to keep the result within max_result_tokens$/,
    );
  });

  it.skipIf(noRuff)("lint_check: the advice of the listed rules is counted too", async () => {
    for (const budget of [1000, 3000]) {
      const r = await s.call("lint_check", { path: path.join(root, "py"), max_result_tokens: budget });
      expect(tokens(r)).toBeLessThanOrEqual(budget);
      expect(r.finding_count).toBe(5000);
    }
  });
});
