import fs from "node:fs";
import path from "node:path";
import lockfile from "proper-lockfile";
import { describe, expect, it } from "vitest";
import { applyFixesOnce } from "../../src/adapters/python/ruff-edits.js";
import { loadRuffSettings } from "../../src/adapters/python/ruff-settings.js";
import { ruffFixArgs } from "../../src/adapters/python/ruff-fix.js";
import { diffFiles, fileStatus, stripDiffSummary } from "../../src/adapters/python/ruff-fix-results.js";
import { cachePaths } from "../../src/fix/cache-dir.js";
import { lockOptions, lockTarget } from "../../src/fix/lock.js";
import { copyFixture } from "../helpers/tools.js";
import { REPO_ROOT } from "../helpers/server.js";
import {
  FIX_PROJECT,
  fixProject,
  noRuff,
  PATH_WITHOUT_RUFF,
  readTree,
  ruffDirect,
  serverFor,
  treeText,
  txEntries,
} from "./helpers.js";

/** Problems left as the fixer lists them (what ruff's json lines become). */
const LEFT = {
  b: [{ line: 5, column: 13, rule_id: "E711", severity: "error" as const, message: "m", fixable: false }],
  bad: [
    {
      line: 2,
      column: 1,
      rule_id: "invalid-syntax",
      severity: "error" as const,
      message: "m",
      fixable: false,
    },
  ],
};

describe("ruff fixer: argv and output parsing", () => {
  it("builds argv for fix, diff and report runs, files after --", () => {
    expect(ruffFixArgs(["/p"], { mode: "fix", unsafe: false })).toEqual([
      "check",
      "--fix",
      // Safe stays safe when the project's config says `unsafe-fixes = true`.
      "--no-unsafe-fixes",
      "--no-cache",
      "--output-format",
      "json-lines",
      "--",
      "/p",
    ]);
    expect(
      ruffFixArgs(["/p/a.py", "/p/b.py"], { mode: "diff", unsafe: true, config: "/p/ruff.toml" }),
    ).toEqual([
      "check",
      "--diff",
      "--unsafe-fixes",
      "--no-cache",
      "--config",
      "/p/ruff.toml",
      "--",
      "/p/a.py",
      "/p/b.py",
    ]);
  });

  it("maps outcomes to seed 001's statuses", () => {
    expect(fileStatus(true, [], false)).toBe("fixed");
    expect(fileStatus(true, LEFT.b, false)).toBe("fixable");
    expect(fileStatus(false, LEFT.b, false)).toBe("unfixable");
    expect(fileStatus(false, LEFT.bad, false)).toBe("error");
    expect(fileStatus(false, [], false)).toBe("clean");
    expect(fileStatus(true, [], true)).toBe("would-fix");
  });

  it("drops ruff's summary line from a --diff", () => {
    const diff =
      "--- a.py\n+++ a.py\n@@ -1,2 +1 @@\n-import os\n x = 1\n\nWould fix 2 errors (1 additional fix available with `--unsafe-fixes`).\n";
    expect(stripDiffSummary(diff)).toBe("--- a.py\n+++ a.py\n@@ -1,2 +1 @@\n-import os\n x = 1\n");
    expect(stripDiffSummary("\nNo errors would be fixed (1 fix available with `--unsafe-fixes`).\n")).toBe(
      "",
    );
  });

  it("reads the files of a --diff", () => {
    expect(diffFiles("--- a.py\n+++ a.py\n@@ -1 +1 @@\n-x\n+y\n--- pkg/b.py\n+++ pkg/b.py\n", "/p")).toEqual([
      "/p/a.py",
      "/p/pkg/b.py",
    ]);
  });

  it.skipIf(noRuff())("applies the embedded ruff's fix edits as the CLI's --unsafe-fixes does", async () => {
    const cli = copyFixture(FIX_PROJECT);
    ruffDirect(cli, ["check", "--fix", "--unsafe-fixes", "--no-cache", "pkg/m1.py"]);
    const file = path.join(FIX_PROJECT, "pkg", "m1.py");
    // The built module: its worker thread runs dist/adapters/python/ruff-thread.js.
    const { EmbeddedRuff } = (await import(
      path.join(REPO_ROOT, "dist/adapters/python/ruff-embedded.js")
    )) as typeof import("../../src/adapters/python/ruff-embedded.js");
    const ruff = new EmbeddedRuff();
    const settings = loadRuffSettings(file, FIX_PROJECT);
    let text = fs.readFileSync(file, "utf8");
    for (let i = 0; i < 10; i++) {
      const next = applyFixesOnce(text, await ruff.check(settings, file, text, { timeoutMs: 60_000 }));
      if (next.applied === 0) break;
      text = next.text;
    }
    await ruff.close();
    expect(text).toBe(fs.readFileSync(path.join(cli, "pkg", "m1.py"), "utf8"));
  });

  it("applies code-point columns correctly around non-BMP characters", () => {
    const text = 'x = "😀" ; y = 1\n';
    const diagnostic = {
      code: "E702",
      message: "",
      start_location: { row: 1, column: 9 },
      fix: {
        message: null,
        edits: [{ content: "\n", location: { row: 1, column: 8 }, end_location: { row: 1, column: 11 } }],
      },
    };
    expect(applyFixesOnce(text, [diagnostic]).text).toBe('x = "😀"\ny = 1\n');
  });
});

describe("lint_fix with ruff", () => {
  it.skipIf(noRuff())("applies the CLI's safe fixes, reports statuses and problems left", async () => {
    const dir = fixProject();
    const expected = copyFixture(FIX_PROJECT);
    ruffDirect(expected, ["check", "--fix", "--no-cache", "."]);
    const s = await serverFor(dir);
    const r = await s.call("lint_fix", { path: "." });
    await s.close();
    expect(r.success).toBe(true);
    expect(r.command).toBe(
      `ruff check --fix --no-unsafe-fixes --no-cache --output-format json-lines -- ${dir}`,
    );
    expect(treeText(dir)).toEqual(treeText(expected));
    const files = r.files as { file: string; status: string; messages: { rule_id: string }[] }[];
    const m1 = files.find((f) => f.file === "pkg/m1.py");
    expect(m1?.status).toBe("fixable");
    // What is left has the shape of an inspected offense: end position, ruff's unsafe fix, docs.
    expect(m1?.messages).toEqual([
      {
        line: 9,
        column: 17,
        end_line: 9,
        end_column: 21,
        rule_id: "E711",
        severity: "error",
        message: "Comparison to `None` should be `cond is None`",
        fixable: false,
        correction: {
          safe: false,
          description: "Replace with `cond is None`",
          edits: [{ line: 9, column: 8, end_line: 9, end_column: 21, text: "items is None" }],
        },
        docs_url: "https://docs.astral.sh/ruff/rules/none-comparison",
      },
    ]);
    // A file with nothing to report is counted, not listed.
    expect(files.find((f) => f.file.endsWith("clean.py"))).toBeUndefined();
    expect((r.summary as { totalFiles: number }).totalFiles).toBe(10);
    expect(r.issue_count).toBe(8);
    expect((r.summary as { fixedFiles: number }).fixedFiles).toBe(8);
    expect((r.transaction as { result: string }).result).toBe("commit");
  });

  it.skipIf(noRuff())("scopes to `files` (paths and globs)", async () => {
    const dir = fixProject();
    const before = readTree(dir);
    const s = await serverFor(dir);
    const r = await s.call("lint_fix", { path: ".", files: ["pkg/m1.py", "pkg/m[23].py"] });
    const bad = await s.call("lint_fix", { path: ".", files: ["nothing/*.py"] });
    const entries = await txEntries(s, dir);
    await s.close();
    expect(entries.map((e) => [e.result, e.files_written])).toEqual([
      ["commit", ["pkg/m1.py", "pkg/m2.py", "pkg/m3.py"]],
      ["error", []],
    ]);
    expect((r.changed_files as string[]).map((f) => path.basename(f))).toEqual(["m1.py", "m2.py", "m3.py"]);
    const after = readTree(dir);
    for (const [file, bytes] of before)
      if (!/m[123]\.py$/.test(file)) expect(after.get(file)?.equals(bytes), file).toBe(true);
    expect(bad.error_type).toBe("invalid_input");
  });

  it("embedded ruff: safe applies nothing and says why; unsafe applies every fix", async () => {
    const dir = fixProject();
    const before = readTree(dir);
    const s = await serverFor(dir, { path: PATH_WITHOUT_RUFF });
    const safe = await s.call("lint_fix", { path: "." });
    expect(readTree(dir)).toEqual(before);
    expect(safe.notes).toEqual(
      expect.arrayContaining([
        expect.stringContaining('does not say which fixes are safe, so safety "safe" applied none'),
      ]),
    );
    const m1 = (safe.files as { file: string; status: string }[]).find((f) => f.file.endsWith("m1.py"));
    expect(m1?.status).toBe("fixable");
    const unsafe = await s.call("lint_fix", { path: ".", safety: "unsafe" });
    await s.close();
    expect((unsafe.changed_files as string[]).length).toBe(8);
    expect(unsafe.issue_count).toBe(0);
    expect(fs.readFileSync(path.join(dir, "pkg", "m1.py"), "utf8")).not.toContain("import os");
    expect((unsafe.transaction as { result: string }).result).toBe("commit");
  });

  it.skipIf(noRuff())(
    "dry run: diff and would-fix, nothing written, no lock taken, no cache created",
    async () => {
      const dir = fixProject();
      const before = readTree(dir);
      // Holding the root lock proves the dry run never waits for it.
      const paths = cachePaths(dir);
      fs.mkdirSync(paths.locks, { recursive: true });
      const release = await lockfile.lock(lockTarget(paths), { ...lockOptions(paths), retries: 0 });
      const s = await serverFor(dir, { args: ["--timeout", "2"] });
      const cli = await s.call("lint_fix", { path: ".", dry_run: true });
      const all = await s.call("fix_all", { path: ".", dry_run: true });
      const format = await s.call("autoformat", { path: ".", dry_run: true });
      const embedded = await serverFor(dir, { path: PATH_WITHOUT_RUFF, args: ["--timeout", "2"] });
      const emb = await embedded.call("lint_fix", { path: ".", dry_run: true, safety: "unsafe" });
      await s.close();
      await embedded.close();
      await release();
      expect(cli.success).toBe(true);
      expect(all).toMatchObject({ success: true, dry_run: true, format: { formatter: "ruff" } });
      // fix_all's dry run verifies as the real run does, on a scratch copy: its result names the project.
      expect(all.type_check).toMatchObject({ command: expect.stringContaining(dir) });
      expect(JSON.stringify(all)).not.toContain("mcq-dry-run-");
      expect(format).toMatchObject({ success: true, dry_run: true, changed_count: 8 });
      expect(cli.diff).toContain("-import os");
      expect(cli.diff).not.toContain("Would fix");
      const m1 = (cli.files as { file: string; status: string }[]).find((f) => f.file.endsWith("m1.py"));
      expect(m1?.status).toBe("would-fix");
      expect(emb.success).toBe(true);
      expect(emb.diff).toContain("-import os");
      expect(readTree(dir)).toEqual(before);
      expect(fs.readdirSync(paths.dir).sort()).toEqual(["locks"]);
      expect(fs.existsSync(paths.audit)).toBe(false);
    },
  );
});
