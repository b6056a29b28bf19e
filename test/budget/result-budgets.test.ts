/**
 * Results that fit an agent's context: 5,000 ruff findings across 200 files (and 2,000 ESLint ones)
 * stay under max_result_tokens by default, keep exact counts, and page through every finding once; so do
 * format_check's files, check_markdown_links' broken links and run_tests' failures.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

type Json = Record<string, unknown>;
const tokens = (r: unknown) => Math.ceil(JSON.stringify(r).length / 4);
const noRuff = missing("ruff", [TOOLS_VENV_BIN]);
const LONG = "y".repeat(400);

/** 200 files, each with 20 unused imports (F401) and 5 `== None` (E711): 5,000 findings. */
function pythonProject(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "pyproject.toml"),
    "[project]\nname = 'big'\nversion = '0'\n\n[tool.ruff.lint]\nselect = ['E7', 'F']\n",
  );
  for (let i = 0; i < 200; i++) {
    const imports = Array.from({ length: 20 }, (_, j) => `import mod_${j}\n`).join("");
    const checks = ["len", "print", "abs", "min", "max"].map((b) => `if ${b} == None:\n    pass\n`).join("");
    const long = i === 0 ? `LONG = "${LONG}"\n` : "";
    fs.writeFileSync(path.join(dir, `m${String(i).padStart(3, "0")}.py`), `${imports}${long}${checks}`);
  }
}

/** 20 files of 50 `let` never reassigned nor used: 1,000 prefer-const errors, 1,000 no-unused-vars warnings. */
function eslintProject(dir: string): void {
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "big", "private": true, "type": "module" }\n');
  fs.writeFileSync(
    path.join(dir, "eslint.config.js"),
    'export default [{ files: ["**/*.js"], rules: { "prefer-const": "error", "no-unused-vars": "warn" } }];\n',
  );
  for (let i = 0; i < 20; i++)
    fs.writeFileSync(
      path.join(dir, "src", `f${String(i).padStart(2, "0")}.js`),
      Array.from({ length: 50 }, (_, j) => `let v${j} = ${j};\n`).join(""),
    );
}

/** Every page from offset 0 (each under the budget), until next_offset runs out. */
async function allPages(s: Connected, args: Json, limit: number, budget: number) {
  const issues: string[] = [];
  let offset: number | undefined = 0;
  let calls = 0;
  while (offset !== undefined) {
    const r = await s.call("lint", { ...args, offset, limit });
    expect(tokens(r)).toBeLessThanOrEqual(budget);
    issues.push(...(r.issues as string[]));
    offset = r.next_offset as number | undefined;
    expect(++calls).toBeLessThan(100);
  }
  return issues;
}

/** 120 Python files ruff format would change. */
function unformattedProject(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 120; i++)
    fs.writeFileSync(path.join(dir, `module_needing_format_${String(i).padStart(3, "0")}.py`), "x=1\n");
}

/** A Markdown file with 150 links to files that do not exist. */
function brokenLinksProject(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const links = Array.from({ length: 150 }, (_, i) => `- [page ${i}](gone/page-${i}.md)`).join("\n");
  fs.writeFileSync(path.join(dir, "index.md"), `# Index\n\n${links}\n`);
}

/** A pytest file with 60 failing tests. */
function failingTestsProject(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const tests = Array.from({ length: 60 }, (_, i) => `def test_${i}():\n    assert ${i} == -1\n`).join("\n");
  fs.writeFileSync(path.join(dir, "test_many.py"), tests);
}

/** Every entry of `key` from offset 0, `limit` at a time, until next_offset runs out. */
async function allEntries(s: Connected, tool: string, args: Json, key: string, limit: number) {
  const entries: unknown[] = [];
  let offset: number | undefined = 0;
  let calls = 0;
  while (offset !== undefined) {
    const r = await s.call(tool, { ...args, offset, limit });
    const page = r[key] as unknown[];
    expect(page.length).toBeGreaterThan(0);
    expect(page.length).toBeLessThanOrEqual(limit);
    entries.push(...page);
    offset = r.next_offset as number | undefined;
    if (offset !== undefined) expect(offset).toBe(entries.length);
    expect(++calls).toBeLessThan(50);
  }
  return entries;
}

/** Paged, every entry exactly once (as the untrimmed listing has them); a small budget trims, counts full. */
async function pagesAndTrims(s: Connected, tool: string, args: Json, key: string, count: string, n: number) {
  const whole = await s.call(tool, { ...args, max_result_tokens: 250_000 });
  expect(whole[count]).toBe(n);
  expect(whole[key]).toHaveLength(n);
  expect(whole.truncated).toBeUndefined();
  const paged = await allEntries(s, tool, args, key, 25);
  expect(paged).toEqual(whole[key]);
  expect(new Set(paged.map((e) => JSON.stringify(e))).size).toBe(n);
  const small = await s.call(tool, { ...args, max_result_tokens: 500 });
  expect(small).toMatchObject({ truncated: true, [count]: n, next: { offset: 0 } });
  expect(tokens(small)).toBeLessThanOrEqual(500);
  const listed = small[key] as unknown[];
  expect(listed.length).toBeGreaterThan(0);
  expect(listed.length).toBeLessThan(n);
  for (const e of listed) expect(whole[key]).toContainEqual(e);
  return { whole, small };
}

describe("result budgets and paging", () => {
  let root: string;
  let py: string;
  let js: string;
  let s: Connected;
  beforeAll(async () => {
    root = tempDir("mcq-budget-");
    py = path.join(root, "py");
    js = path.join(root, "js");
    pythonProject(py);
    eslintProject(js);
    unformattedProject(path.join(root, "fmt"));
    brokenLinksProject(path.join(root, "md"));
    failingTestsProject(path.join(root, "tests"));
    s = await connectStdio({
      args: ["--allowed-paths", root, "--rate-limit", "false"],
      cwd: root,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin`, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it.skipIf(noRuff)("ruff: the default result fits 8,000 tokens, counts exact, trimmed fairly", async () => {
    // ruff run directly (exit 1: findings).
    const run = spawnSync(
      path.join(TOOLS_VENV_BIN, "ruff"),
      ["check", "--output-format", "json", "--no-cache", "."],
      {
        cwd: py,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const direct = JSON.parse(run.stdout) as { code: string; fix: { applicability: string } | null }[];
    expect(direct).toHaveLength(5000);
    // As ruff counts them: fixable by --fix (safe), and the rest of the fixes only with --unsafe-fixes.
    const fixable = direct.filter((d) => d.fix?.applicability === "safe").length;
    const unsafe = direct.filter((d) => d.fix && d.fix.applicability !== "safe").length;
    expect(unsafe).toBe(1000);
    const r = await s.call("lint", { path: py });
    expect(tokens(r)).toBeLessThanOrEqual(8000);
    expect(r.issue_count).toBe(5000);
    expect(r.truncated).toBe(true);
    expect(r.summary_text).toBe(
      `ruff: 5000 findings in 200 files, ${fixable} fixable, ${unsafe} more with unsafe fixes; F401 ×4000, E711 ×1000`,
    );
    const issues = r.issues as string[];
    // Fair: every file and both rules of every file keep findings.
    const files = new Set(issues.map((i) => i.split(":")[0]));
    expect(files.size).toBe(200);
    for (const f of files) {
      expect(issues.some((i) => i.startsWith(`${f}:`) && i.includes(" F401 "))).toBe(true);
      expect(issues.some((i) => i.startsWith(`${f}:`) && i.includes(" E711 "))).toBe(true);
    }
    expect(r.next).toEqual({ offset: 0, limit: expect.any(Number) });

    // A smaller budget is kept as well.
    const small = await s.call("lint", { path: py, max_result_tokens: 2000 });
    expect(tokens(small)).toBeLessThanOrEqual(2000);
    expect(small.issue_count).toBe(5000);
  });

  it.skipIf(noRuff)("ruff: paging returns every finding exactly once, stable across calls", async () => {
    const first = await s.call("lint", { path: py });
    const limit = (first.next as { limit: number }).limit;
    const pages = await allPages(s, { path: py }, limit, 8000);
    expect(pages).toHaveLength(5000);
    expect(new Set(pages).size).toBe(5000);
    // The fair sample of the default result is part of the same set.
    for (const i of first.issues as string[]) expect(pages).toContain(i);
    const again = await s.call("lint", { path: py, offset: limit, limit });
    expect(again.issues).toEqual(pages.slice(limit, 2 * limit));
  });

  it.skipIf(noRuff)("context_lines: snippets of listed findings, capped per finding", async () => {
    const r = await s.call("lint", { path: path.join(py, "m000.py"), context_lines: 2 });
    const findings = r.findings as { path: string; line: number; snippet?: string }[];
    expect(findings).toHaveLength(25);
    const first = findings[0]!;
    expect(first).toMatchObject({
      path: "m000.py",
      line: 1,
      snippet: "1| import mod_0\n2| import mod_1\n3| import mod_2",
    });
    for (const f of findings) {
      const lines = f.snippet!.split("\n");
      expect(lines.length).toBeLessThanOrEqual(5);
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(170);
    }
    // The long line next to the first E711 is cut.
    const e711 = findings.find((f) => f.line === 22)!;
    expect(e711.snippet).toContain(`21| LONG = "${LONG.slice(0, 150)}`);
    expect(e711.snippet).not.toContain(LONG);
    // Without context_lines, no source at all.
    const plain = await s.call("lint", { path: path.join(py, "m000.py") });
    expect(plain.findings).toBeUndefined();
    expect(JSON.stringify(plain)).not.toContain("import mod_0\\n");
    await expect(
      s.client.callTool({ name: "lint", arguments: { path: py, context_lines: 6 } }),
    ).rejects.toThrow(/context_lines/);
  });

  it("eslint: files[] and summary under the budget, full totals, every finding once", async () => {
    const r = await s.call("lint", { path: js, linter: "eslint" });
    expect(tokens(r)).toBeLessThanOrEqual(8000);
    expect(r.issue_count).toBe(2000);
    expect(r.summary).toMatchObject({ totalFiles: 21, totalErrors: 1000, totalWarnings: 1000 });
    expect(r.summary_text).toBe(
      "eslint: 2000 findings in 20 files, 1000 fixable; no-unused-vars ×1000, prefer-const ×1000",
    );
    expect(r.truncated).toBe(true);
    const listed = (r.files as { messages: unknown[] }[]).reduce((n, f) => n + f.messages.length, 0);
    expect(listed).toBe((r.issues as string[]).length);
    const limit = (r.next as { limit: number }).limit;
    const pages = await allPages(s, { path: js, linter: "eslint" }, limit, 8000);
    expect(pages).toHaveLength(2000);
    expect(new Set(pages).size).toBe(2000);
  });

  it.skipIf(noRuff)("format_check: unformatted_files paged and trimmed, counts full", async () => {
    const fmt = path.join(root, "fmt");
    // ruff run directly lists the same 120 files.
    const run = spawnSync(path.join(TOOLS_VENV_BIN, "ruff"), ["format", "--check", "--no-cache", "."], {
      cwd: fmt,
      encoding: "utf8",
    });
    expect(run.stdout).toContain("120 files would be reformatted");
    const { small } = await pagesAndTrims(
      s,
      "format_check",
      { path: fmt },
      "unformatted_files",
      "unformatted_count",
      120,
    );
    expect(small.summary_text).toMatch(/: 120 files would be reformatted$/);
  });

  it("check_markdown_links: broken links paged and trimmed, counts full", async () => {
    const args = { path: path.join(root, "md"), check_external: false };
    const { whole, small } = await pagesAndTrims(
      s,
      "check_markdown_links",
      args,
      "broken",
      "broken_count",
      150,
    );
    expect((whole.broken as { url: string }[])[149]).toMatchObject({
      file: "md/index.md",
      url: "gone/page-149.md",
    });
    expect(small).toMatchObject({
      broken_links: 150,
      summary_text: "markdown-links: 150 findings in 1 file; broken-link ×150",
    });
  });

  it.skipIf(missing("pytest"))("run_tests: failures paged and trimmed, counts full", async () => {
    const args = { path: path.join(root, "tests") };
    const { small } = await pagesAndTrims(s, "run_tests", args, "failures", "failure_count", 60);
    expect(small).toMatchObject({ summary: { failed: 60 }, summary_text: "pytest: 60 failures" });
    // pytest's own output keeps its end (the counts) within its share of the budget.
    expect(small.output).toMatch(
      /^\[\.\.\. \d+ lines cut to keep the result within max_result_tokens \.\.\.\]\n/,
    );
    expect(small.output).toMatch(/60 failed in [\d.]+s/);
  });
});
