/**
 * Issue 30: results fit the agent's context without holes. Paging under a small --max-result-bytes sees every
 * finding exactly once (a page the byte cap would cut is cut by the budget, and next_offset is the first
 * finding not shown); ESLint's files[] holds the page's files on every page, past the 500th file too. Dry
 * runs, snippets, notes and advice: dry-run-budgets.test.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { pageThrough, pythonProject } from "./projects.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const bytes = (r: unknown) => Buffer.byteLength(JSON.stringify(r));
const noRuff = missing("ruff", [TOOLS_VENV_BIN]);
const CAP = 16 * 1024;

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
