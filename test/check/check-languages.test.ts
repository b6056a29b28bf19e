/**
 * `check` on a fixture project of every language at once (one process, real tools): exit codes, the JSON,
 * and one schema-valid SARIF log with a run per tool; the report; clean and broken-config projects.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CHECK_FIXTURES,
  parseJson,
  PATH_WITH_TOOLS,
  runCheck,
  type CheckJson,
  type CheckRun,
} from "../helpers/check.js";
import { sarifErrors } from "../helpers/sarif.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const LANGUAGES = ["python", "js", "go", "rust", "ruby", "markdown"];
/** ty is not bundled: without it the Python checks are two, and ty is skipped. */
const noTy = missing("ty", [TOOLS_VENV_BIN]);

interface SarifLog {
  runs: {
    tool: { driver: { name: string } };
    results: { ruleId: string; locations?: { physicalLocation: { artifactLocation: { uri: string } } }[] }[];
    originalUriBaseIds: Record<string, { uri: string }>;
  }[];
}

describe("check on a project of every language", () => {
  let run: CheckRun;
  let json: CheckJson;
  let sarif: SarifLog;
  beforeAll(async () => {
    const sarifFile = path.join(tempDir("mcq-check-sarif-"), "check.sarif");
    run = await runCheck([...LANGUAGES, "--json", "--sarif", sarifFile]);
    json = parseJson(run);
    sarif = JSON.parse(fs.readFileSync(sarifFile, "utf8")) as SarifLog;
  }, 300_000);

  const check = (language: string, id: string) => {
    const c = json.checks.find((x) => x.id === id && x.target === path.join(CHECK_FIXTURES, language));
    if (!c)
      throw new Error(`no ${id} check for ${language}: ${JSON.stringify(json.checks.map((x) => x.id))}`);
    return c;
  };
  const rules = (id: string) =>
    json.findings
      .filter((f) => f.check === id)
      .map((f) => f.rule_id)
      .sort();

  it("exits 1 on findings, says so in the JSON, and prints nothing to a non-terminal stderr", () => {
    expect(run.status).toBe(1);
    expect(json.exit_code).toBe(1);
    expect(run.stderr).toBe("");
  });

  it("writes one schema-valid SARIF log: a run per tool, every finding of the JSON in it", () => {
    expect(sarifErrors(sarif)).toEqual([]);
    const names = sarif.runs.map((r) => r.tool.driver.name);
    expect(new Set(names).size).toBe(names.length);
    const results = sarif.runs.reduce((n, r) => n + r.results.length, 0);
    expect(results).toBe(json.findings.length);
    // Every location is relative to the working directory the check ran in.
    for (const r of sarif.runs) {
      expect(r.originalUriBaseIds["%SRCROOT%"]?.uri).toBe(`file://${CHECK_FIXTURES}/`);
      for (const res of r.results)
        expect(
          LANGUAGES.some((l) =>
            res.locations?.[0]?.physicalLocation.artifactLocation.uri.startsWith(`${l}/`),
          ),
        ).toBe(true);
    }
  });

  it.skipIf(noTy)(
    "Python: ruff format, ruff and ty, with ruff's findings the ones the ruff CLI prints",
    () => {
      expect(check("python", "ruff-format").status).toBe("findings");
      expect(check("python", "ty").status).toBe("findings");
      expect(rules("ty")).toEqual(["invalid-assignment"]);
      expect(rules("ruff")).toEqual(["F401"]);
      if (!missing("ruff", [TOOLS_VENV_BIN])) {
        const direct = spawnSync("ruff", ["check", "--isolated", "--output-format", "json", "python"], {
          cwd: CHECK_FIXTURES,
          encoding: "utf8",
          env: { ...process.env, PATH: PATH_WITH_TOOLS },
        });
        expect((JSON.parse(direct.stdout) as { code: string }[]).map((d) => d.code).sort()).toEqual(
          rules("ruff"),
        );
      }
      const f401 = json.findings.find((f) => f.rule_id === "F401");
      expect(f401).toMatchObject({ file: "python/app.py", line: 1, level: "error" });
      expect(f401?.docs_url).toBe("https://docs.astral.sh/ruff/rules/unused-import");
    },
  );

  it("JavaScript/TypeScript: prettier (configured), eslint and tsc", () => {
    expect(check("js", "prettier").status).toBe("findings");
    expect(rules("eslint")).toEqual(["@typescript-eslint/no-unused-vars"]);
    expect(rules("tsc")).toEqual(["TS2322"]);
  });

  it.skipIf(missing("go"))("Go: gofmt, go vet, go build", () => {
    expect(rules("gofmt")).toEqual(["format"]);
    expect(rules("govet")).toEqual(["printf"]);
    expect(check("go", "go").status).toBe("passed");
  });

  it.skipIf(missing("cargo"))("Rust: rustfmt, clippy, cargo check", () => {
    expect(rules("rustfmt")).toEqual(["format"]);
    expect(rules("clippy")).toEqual(["clippy::len_zero", "clippy::ptr_arg"]);
    expect(check("rust", "cargo").status).toBe("passed");
    expect(fs.existsSync(path.join(CHECK_FIXTURES, "rust", "Cargo.lock"))).toBe(false);
  });

  it.skipIf(missing("rubocop"))("Ruby: rubocop", () => {
    expect(rules("rubocop")).toContain("Lint/UselessAssignment");
    expect(check("ruby", "rubocop").status).toBe("findings");
  });

  it("Markdown: the link check finds the broken local link", () => {
    expect(json.findings.filter((f) => f.check === "markdown-links")).toMatchObject([
      { file: "markdown/README.md", line: 3, rule_id: "broken-link", level: "error" },
    ]);
  });
});

describe("check's exit codes and report", () => {
  it.skipIf(noTy)("exits 0 on a clean project, with a summary saying so", async () => {
    const r = await runCheck(["python-clean"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ {2}ruff-format +format +passed +\d+\.\d s$/m);
    expect(r.stdout).toMatch(/^✓ no findings; 3 checks ran, 0 skipped, 0 failed · \d+\.\d s$/m);
  });

  it("exits 0 with a note when a path holds nothing it checks", async () => {
    const r = await runCheck([tempDir("mcq-check-empty-")]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      "nothing to check: no Python, JavaScript/TypeScript, Go, Rust, Ruby or Markdown files",
    );
  });

  it("exits 3 when a tool fails (ruff on a bad config), naming the failure", async () => {
    const r = await runCheck(["python-bad-config", "--json"]);
    expect(r.status).toBe(3);
    const json = parseJson(r);
    expect(json.checks.find((c) => c.id === "ruff")).toMatchObject({
      status: "failed",
      error_type: "tool_error",
    });
  });

  it.skipIf(noTy)(
    "prints per tool a line, findings grouped by file with rule ids, rule docs and a summary",
    async () => {
      const r = await runCheck(["python"]);
      expect(r.status).toBe(1);
      const lines = r.stdout.split("\n");
      expect(lines).toContain("python/app.py");
      expect(r.stdout).toMatch(/^ {2}ruff +lint +1 finding \(1 error\) +\d+\.\d s$/m);
      expect(r.stdout).toMatch(/^ {2}1:8 +error +F401 +`os` imported but unused +\[ruff\]$/m);
      expect(r.stdout).toMatch(
        /^ {2}F401 \(ruff\) +https:\/\/docs\.astral\.sh\/ruff\/rules\/unused-import$/m,
      );
      expect(lines.at(-2)).toMatch(
        /^✗ 3 findings \(2 errors, 1 warning\) in 1 file; 3 checks ran, 0 skipped, 0 failed · /,
      );
      // No colours when stdout is not a terminal.
      expect(r.stdout).not.toContain("\x1b[");
    },
  );

  it("refuses a path that does not exist and unknown flags with exit 2", async () => {
    expect((await runCheck(["no-such-dir"])).status).toBe(2);
    const r = await runCheck(["python", "--bogus"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--bogus");
    // The server's limit flags are checked as the server checks them.
    const timeout = await runCheck(["python", "--timeout", "0"]);
    expect(timeout.status).toBe(2);
    expect(timeout.stderr).toContain("--timeout: must be in 1-86400, got 0");
  });
});
