/**
 * Issue 26.1-26.4 and 26.7: every tool's default follows what the project is (tool-choice.ts), on projects
 * of each language, each compared with the project's own tool run directly. Where nothing fits: no `passed`,
 * no transaction, no .mcp-cache. Read-only calls leave the tree byte-identical.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, REPO_ROOT, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_GO_BIN, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";
import { parseJson, runCheck } from "../helpers/check.js";

const DEFAULTS = path.join(FIXTURES, "defaults");
const PATH_WITH_TOOLS = `${TOOLS_VENV_BIN}:${TOOLS_GO_BIN}:${process.env.PATH}`;
const GOSEC = path.join(TOOLS_GO_BIN, "gosec");
const BIN = (tool: string) => path.join(REPO_ROOT, "node_modules", ".bin", tool);

type Json = Record<string, unknown>;

function direct(program: string, args: string[], cwd: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: PATH_WITH_TOOLS, GOTOOLCHAIN: "local" };
  // vitest sets TEST=true, which rake's test task would read as the files to run.
  delete env.TEST;
  return spawnSync(program, args, { cwd, encoding: "utf8", env });
}

async function serverOn(dir: string): Promise<Connected> {
  return connectStdio({
    args: ["--allowed-paths", dir, "--rate-limit", "false"],
    cwd: dir,
    env: { PATH: PATH_WITH_TOOLS, VIRTUAL_ENV: undefined },
  });
}

/** A call that must not write: the tree is the same after it. */
async function readOnly(s: Connected, dir: string, tool: string, args: Json): Promise<Json> {
  const before = treeHash(dir);
  const r = await s.call(tool, args);
  expect(treeHash(dir)).toEqual(before);
  return r;
}

describe.skipIf(missing("go"))("a Go module", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(path.join(DEFAULTS, "go-module"));
    s = await serverOn(dir);
  });
  afterAll(() => s?.close());

  it("lint_fix fits nothing (Go has no lint fixer): no pass, no transaction, no .mcp-cache", async () => {
    const r = await readOnly(s, dir, "lint_fix", { path: "." });
    expect(r).toMatchObject({ success: true, nothing_checked: true, changed_files: [] });
    expect("passed" in r).toBe(false);
    expect("transaction" in r).toBe(false);
    expect(r.notes).toEqual([
      "checked nothing: no lint fixer for the project's languages: go; go: go vet fixes nothing (gofmt formats: autoformat); a project that configures golangci-lint is fixed with golangci-lint run --fix; nothing was written",
    ]);
    expect(fs.existsSync(path.join(dir, ".mcp-cache"))).toBe(false);
  });

  it("fix_all has no lint fix for Go: it formats with gofmt only (what gofmt -l lists), nothing else", async () => {
    const own = direct("gofmt", ["-l", "."], dir).stdout.trim().split("\n");
    const r = await readOnly(s, dir, "fix_all", { path: ".", dry_run: true });
    expect(r).toMatchObject({ success: true, dry_run: true, changed_files: [] });
    expect(r.format).toMatchObject({ formatter: "gofmt" });
    expect((r.format as { changed_files: string[] }).changed_files).toEqual(
      own.map((f) => path.join(dir, f)),
    );
    expect((r.notes as string[]).join("\n")).toContain(
      "no lint fix: no lint fixer for the project's languages: go",
    );
  });

  it("autoformat uses gofmt: a dry run is not `formatted` and lists what gofmt -l lists", async () => {
    const own = direct("gofmt", ["-l", "."], dir).stdout.trim().split("\n");
    expect(own).toEqual(["messy.go"]);
    const dry = await readOnly(s, dir, "autoformat", { path: ".", dry_run: true });
    expect(dry).toMatchObject({ success: true, formatted: false, dry_run: true, changed_count: 1 });
    expect(dry.changed_files).toEqual(own);
    expect(dry.notes).toContain("formatter: gofmt (the project's languages: go)");
  });

  it.skipIf(missing("gosec", [TOOLS_GO_BIN]))(
    "security_scan runs gosec (not bandit) with gosec's own findings, and names govulncheck",
    async () => {
      const own = JSON.parse(direct(GOSEC, ["-fmt", "json", "-quiet", "./..."], dir).stdout) as {
        Issues: { rule_id: string; line: string }[];
      };
      const r = await readOnly(s, dir, "security_scan", { path: "." });
      expect(r).toMatchObject({ success: true, passed: false, finding_count: own.Issues.length });
      expect((r.common_findings as Json[]).map((f) => [f.rule_id, f.line])).toEqual(
        own.Issues.map((i) => [i.rule_id, Number(i.line)]).sort(
          (a, b) => (a[1] as number) - (b[1] as number),
        ),
      );
      expect(r.issues).toContain(
        "main.go:10:9: G204 Subprocess launched with variable (severity MEDIUM, confidence HIGH)",
      );
      const scanners = r.scanners as Json[];
      expect(scanners.map((x) => [x.name, x.ran])).toEqual([
        ["secrets", true],
        ["gosec", true],
        ["govulncheck", false],
      ]);
      expect(JSON.stringify(r)).not.toMatch(/bandit/);
    },
  );
});

describe("a TypeScript project without Prettier", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(path.join(FIXTURES, "js", "ts-project"));
    s = await serverOn(dir);
  });
  afterAll(() => s?.close());

  it("lint_fix dry run uses ESLint (not ruff), leaving what ESLint itself reports", async () => {
    const own = JSON.parse(
      direct(BIN("eslint"), ["--fix-dry-run", "-f", "json", "src", "scripts"], dir).stdout,
    ) as {
      filePath: string;
      messages: unknown[];
      output?: string;
    }[];
    const r = await readOnly(s, dir, "lint_fix", { path: ".", dry_run: true });
    expect(r).toMatchObject({ success: true, passed: false });
    expect(r.command).toMatch(/^eslint/);
    expect(r.issue_count).toBe(own.reduce((n, f) => n + f.messages.length, 0));
    expect(r.changed_files).toEqual(own.filter((f) => f.output !== undefined).map((f) => f.filePath));
    expect(r.notes).toContain("linter: eslint (the project's languages: typescript, javascript)");
  });

  it("autoformat has no formatter to use: nothing_checked, no .mcp-cache", async () => {
    const r = await readOnly(s, dir, "autoformat", { path: "." });
    expect(r).toMatchObject({ success: true, nothing_checked: true });
    expect("formatted" in r).toBe(false);
    expect(fs.existsSync(path.join(dir, ".mcp-cache"))).toBe(false);
  });

  it("security_scan names npm audit, which needs an npm lockfile: only secrets are scanned, no pass", async () => {
    const r = await readOnly(s, dir, "security_scan", { path: "." });
    expect(r).toMatchObject({ success: true, code_scanned: false, finding_count: 0 });
    expect("passed" in r).toBe(false);
    expect("nothing_checked" in r).toBe(false);
    expect(r.notes).toEqual([
      "no pass: only secrets ran; none of the scanners for typescript, javascript could run",
      `not scanned with npm-audit: ${path.join(dir, "package.json")} has no npm lockfile: write one with \`npm install --package-lock-only\``,
    ]);
  });

  it("fix_all dry run: ESLint's fixes, no format step (no Prettier), and it says so", async () => {
    const r = await readOnly(s, dir, "fix_all", { path: ".", dry_run: true });
    expect(r).toMatchObject({ success: true, dry_run: true });
    expect(r.command).toMatch(/^eslint/);
    expect(r.format).toBeUndefined();
    expect(r.notes).toContain(
      'formatting skipped for typescript: the project does not use Prettier (no config, no dependency, no script), so it is not formatted by default; formatter: "prettier" uses the bundled one',
    );
  });
});

describe.skipIf(missing("rubocop") || missing("rspec"))("a Ruby gem with a docs site package.json", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(path.join(DEFAULTS, "ruby-gem"));
    s = await serverOn(dir);
  });
  afterAll(() => s?.close());

  it("lint and lint_fix use RuboCop (not ESLint), with RuboCop's own count", async () => {
    const own = JSON.parse(direct("rubocop", ["--format", "json"], dir).stdout) as {
      summary: { offense_count: number };
    };
    const r = await readOnly(s, dir, "lint", { path: "." });
    expect(r).toMatchObject({ success: true, passed: false, issue_count: own.summary.offense_count });
    expect(r.notes).toContain("linter: rubocop (the project's languages: ruby)");
    const fix = await readOnly(s, dir, "lint_fix", { path: ".", dry_run: true });
    expect(fix.command).toMatch(/^rubocop/);
  });

  it("format_check uses RuboCop's layout cops; type_check has no checker: nothing_checked", async () => {
    const f = await readOnly(s, dir, "format_check", { path: "." });
    expect(f).toMatchObject({ success: true, formatted: false, unformatted_files: ["lib/calc.rb"] });
    const t = await readOnly(s, dir, "type_check", { path: "." });
    expect(t).toMatchObject({ success: true, nothing_checked: true });
    expect(t.notes).toEqual(["checked nothing: no type checker for the project's languages: ruby"]);
  });

  it("run_tests runs RSpec with its own counts and the failing line", async () => {
    const own = JSON.parse(direct("rspec", ["--format", "json"], dir).stdout) as {
      summary: { example_count: number; failure_count: number; pending_count: number };
    };
    const r = await s.call("run_tests", { path: "." });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      runner: "rspec",
      summary: {
        passed: own.summary.example_count - own.summary.failure_count - own.summary.pending_count,
        failed: own.summary.failure_count,
        skipped: own.summary.pending_count,
        errors: 0,
      },
    });
    expect(r.failures).toEqual([
      {
        node_id: "spec/calc_spec.rb > Calc adds badly",
        kind: "failed",
        file: "spec/calc_spec.rb",
        line: 12,
        message: "expected: 5\n     got: 4\n\n(compared using ==)",
      },
    ]);
  });

  it("security_scan names brakeman and bundler-audit: only secrets are scanned, no pass", async () => {
    const r = await readOnly(s, dir, "security_scan", { path: "." });
    expect(r).toMatchObject({ success: true, code_scanned: false });
    expect("passed" in r).toBe(false);
    expect((r.scanners as Json[]).map((x) => [x.name, x.ran])).toEqual([
      ["secrets", true],
      ["brakeman", false],
      ["bundler-audit", false],
    ]);
  });
});

describe.skipIf(missing("ruby") || missing("rake"))("a Minitest project", () => {
  it("run_tests runs `rake test` with Minitest's own counts", async () => {
    const dir = copyFixture(path.join(DEFAULTS, "minitest-gem"));
    const own = direct("rake", ["test"], dir).stdout;
    const m = /(\d+) runs, \d+ assertions, (\d+) failures, (\d+) errors, (\d+) skips/.exec(own);
    const [runs, failures, errors, skips] = (m?.slice(1) ?? []).map(Number) as number[];
    const s = await serverOn(dir);
    try {
      const r = await s.call("run_tests", { path: "." });
      expect(r).toMatchObject({
        success: true,
        passed: false,
        runner: "minitest",
        command: "rake test",
        summary: { passed: runs! - failures! - errors! - skips!, failed: failures, errors, skipped: skips },
      });
      expect(r.failures).toEqual(
        [
          {
            node_id: "test/calc_test.rb > CalcTest#test_adds_badly",
            kind: "failed",
            file: "test/calc_test.rb",
            line: 13,
            message: "Expected: 5\n  Actual: 4",
          },
          {
            node_id: "test/calc_test.rb > CalcTest#test_raises",
            kind: "error",
            file: "test/calc_test.rb",
            line: 17,
            message: expect.stringMatching(/^ArgumentError: boom\n/),
          },
        ].sort((a, b) => a.line - b.line),
      );
      // One file, by name: ruby -Itest -Ilib on it, with a name pattern.
      const one = await s.call("run_tests", { path: "test/calc_test.rb", pattern: "adds" });
      expect(one).toMatchObject({ runner: "minitest", summary: { passed: 1, failed: 1, errors: 0 } });
    } finally {
      await s.close();
    }
  });
});

describe("a node:test project behind `npm run`", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(path.join(DEFAULTS, "node-test-chain"));
    s = await serverOn(dir);
  });
  afterAll(() => s?.close());

  it("follows test → test:unit → `c8 --100 node --test` and reports node's own counts", async () => {
    const own = direct(process.execPath, ["--test", "--test-reporter=tap"], dir).stdout;
    const count = (k: string) => Number(new RegExp(`^# ${k} (\\d+)$`, "m").exec(own)?.[1]);
    const r = await s.call("run_tests", { path: "." });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      runner: "node",
      summary: { passed: count("pass"), failed: count("fail"), skipped: count("skipped") },
    });
    expect(r.failures).toEqual([
      {
        node_id: "test/math.test.js > add > adds badly",
        kind: "failed",
        file: "test/math.test.js",
        line: 12,
        message: "Expected values to be strictly equal:\n\n4 !== 5",
      },
    ]);
    expect(r.notes).toContain(
      "the project's test script (test → test:unit) runs `c8 --100 node --test`; ran node without its coverage wrapper (coverage thresholds are not checked)",
    );
  });

  it("a .test.js path runs node --test on it, never pytest", async () => {
    const r = await s.call("run_tests", { path: "test/math.test.js", pattern: "adds" });
    expect(r).toMatchObject({ success: true, runner: "node" });
    expect(r.command).toMatch(/ --test-name-pattern=adds test\/math\.test\.js$/);
    expect(JSON.stringify(r)).not.toMatch(/pytest/);
  });
});

describe("a Python and JavaScript project", () => {
  it("lint without linter runs ruff and ESLint, each with its own count", async () => {
    const dir = copyFixture(path.join(DEFAULTS, "mixed"));
    const ruff = direct(
      path.join(TOOLS_VENV_BIN, "ruff"),
      ["check", "--isolated", "--output-format", "json", "."],
      dir,
    );
    const eslint = JSON.parse(direct(BIN("eslint"), ["-f", "json", "."], dir).stdout) as {
      messages: unknown[];
    }[];
    const ownRuff = missing("ruff", [TOOLS_VENV_BIN]) ? 2 : (JSON.parse(ruff.stdout) as unknown[]).length;
    const ownEslint = eslint.reduce((n, f) => n + f.messages.length, 0);
    const s = await serverOn(dir);
    try {
      const r = await readOnly(s, dir, "lint", { path: "." });
      expect(r).toMatchObject({ success: true, passed: false, issue_count: ownRuff + ownEslint });
      // Both have a manifest; JavaScript has more files: it comes first.
      expect((r.linters as Json[]).map((l) => [l.linter, l.issue_count])).toEqual([
        ["eslint", ownEslint],
        ["ruff", ownRuff],
      ]);
      expect(r.notes).toContain("linters: eslint, ruff (the project's languages: javascript, python)");
      // files selecting Python only: ruff alone.
      const py = await readOnly(s, dir, "lint", { path: ".", files: ["tool/*.py"] });
      expect(py).toMatchObject({ issue_count: ownRuff });
      expect("linters" in py).toBe(false);
    } finally {
      await s.close();
    }
  });
});

describe("Prettier where the project has it, on what its script formats", () => {
  it("format_check checks `prettier -c src test`'s files, not eslint.config.mjs", async () => {
    const dir = copyFixture(path.join(DEFAULTS, "prettier-script"));
    const own = direct(BIN("prettier"), ["-l", "src", "test"], dir).stdout.trim().split("\n").sort();
    expect(own).toEqual(["src/a.js", "test/a.test.js"]);
    const s = await serverOn(dir);
    try {
      const r = await readOnly(s, dir, "format_check", { path: "." });
      expect(r).toMatchObject({ success: true, formatted: false, unformatted_files: own });
      expect(r.notes).toContain(
        "formatted src test, what the project's format script formats (prettier -c src test)",
      );
    } finally {
      await s.close();
    }
  });
});

describe.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("autoformat dry run on Python", () => {
  it("is `formatted: false` while it lists the files it would change", async () => {
    const dir = copyFixture(path.join(FIXTURES, "check", "python-clean"));
    fs.writeFileSync(path.join(dir, "messy.py"), "x=[ 1,2 ]\n");
    const s = await serverOn(dir);
    try {
      const r = await readOnly(s, dir, "autoformat", { path: ".", dry_run: true });
      expect(r).toMatchObject({ success: true, formatted: false, dry_run: true, changed_count: 1 });
      expect(r.changed_files).toEqual(["messy.py"]);
    } finally {
      await s.close();
    }
  });
});

describe.skipIf(missing("mypy"))("check on a project that configures mypy and pyright", () => {
  it("runs both, each with the count the checker itself reports", async () => {
    const dir = copyFixture(path.join(FIXTURES, "check", "python"));
    fs.appendFileSync(path.join(dir, "pyproject.toml"), "\n[tool.mypy]\n\n[tool.pyright]\n");
    const mypyOwn = direct("mypy", ["--no-incremental", "app.py"], dir).stdout;
    const pyrightOwn = JSON.parse(
      direct(
        process.execPath,
        [path.join(REPO_ROOT, "node_modules", "pyright", "index.js"), "--outputjson", "."],
        dir,
      ).stdout,
    ) as { summary: { errorCount: number } };
    const run = await runCheck([dir, "--json", "--only", "types"], { cwd: dir });
    const json = parseJson(run);
    const count = (id: string) => json.checks.find((c) => c.id === id)?.finding_count;
    expect(json.checks.map((c) => c.id)).toEqual(["mypy", "pyright"]);
    expect(count("mypy")).toBe(Number(/Found (\d+) errors?/.exec(mypyOwn)?.[1] ?? 0));
    expect(count("pyright")).toBe(pyrightOwn.summary.errorCount);
  });
});

describe.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
  "a monorepo whose TypeScript folders are big and shallow",
  () => {
    it("still finds its Python deeper down: lint and check run ruff on it, with ruff's own count", async () => {
      // 6,000 TypeScript files at depth 3 (250 a folder) before 30 Python files at depth 4: breadth first,
      // an overall entry budget was spent before any Python folder was listed ("no python files").
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-monorepo-shape-")));
      try {
        fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "m"\nversion = "0"\n');
        for (let p = 0; p < 24; p++) {
          const src = path.join(dir, "packages", `ts-${p}`, "src");
          fs.mkdirSync(src, { recursive: true });
          for (let i = 0; i < 250; i++)
            fs.writeFileSync(path.join(src, `f${i}.ts`), `export const x${i} = ${i};\n`);
        }
        for (let p = 0; p < 3; p++) {
          const pkg = path.join(dir, "packages", `py-${p}`, "src", `pkg${p}`);
          fs.mkdirSync(pkg, { recursive: true });
          for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(pkg, `m${i}.py`), "import os\n");
        }
        const own = direct(
          path.join(TOOLS_VENV_BIN, "ruff"),
          ["check", "--no-cache", "--output-format", "json", "."],
          dir,
        );
        const count = (JSON.parse(own.stdout) as unknown[]).length;
        expect(count).toBe(30);
        const s = await serverOn(dir);
        try {
          const r = await readOnly(s, dir, "lint", { path: ".", linter: "ruff" });
          expect(r.nothing_checked).toBeUndefined();
          expect(r.issue_count).toBe(count);
        } finally {
          await s.close();
        }
        const json = parseJson(await runCheck([".", "--only", "ruff", "--json"], { cwd: dir }));
        const ruff = json.checks.find((c) => c.id === "ruff");
        expect(ruff).toMatchObject({ language: "python", finding_count: count });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
