/**
 * Issue 39: a Go project that configures golangci-lint (`.golangci.yml`) is linted with golangci-lint and its
 * config, as its own CI does, not with go vet alone. The fixture enables errcheck and govet only and plants
 * two unchecked errors, a printf mistake and an ineffectual assignment (ineffassign: a default linter the
 * config turns off). `lint` reports exactly what `golangci-lint run` prints in that folder and writes nothing
 * there; without the config, govet as before; configured but not installed, govet with a note saying the
 * config was not honoured, and `check` lists golangci-lint as skipped with that reason and names the project
 * as not checked (exit 3, whatever govet found).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson, runCheck } from "../helpers/check.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir, TOOLS_GO_BIN } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";

const FIXTURE = path.join(FIXTURES, "go", "golangci-project");
const GOLANGCI = path.join(TOOLS_GO_BIN, "golangci-lint");
const PATH_WITH_GO_TOOLS = `${TOOLS_GO_BIN}:${process.env.PATH ?? ""}`;
/** The PATH without the installed Go tools (and no GOBIN/GOPATH that holds them): golangci-lint missing. */
const PATH_WITHOUT = (process.env.PATH ?? "")
  .split(":")
  .filter((d) => !fs.existsSync(path.join(d, "golangci-lint")))
  .join(":");
const NO_GO_BINS = { PATH: PATH_WITHOUT, GOBIN: undefined, GOPATH: tempDir("mcq-gopath-") };
/** How check says to install golangci-lint for a project that configures it. */
const INSTALL_REASON =
  "go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@latest (the project configures it; " +
  "govet ran instead, whose verdict is not the project's own)";

interface Finding {
  file: string;
  line: number;
  rule_id: string;
}

/**
 * `golangci-lint run` in the folder, as a developer runs it: `file:line rule` of what it prints (its file
 * names made absolute, then relative to `dir`: golangci-lint's own are relative to its config's folder).
 */
function direct(dir: string): string[] {
  return directIssues(dir)
    .map((i) => `${path.relative(dir, i.Pos.Filename)}:${i.Pos.Line} ${i.FromLinter}`)
    .sort();
}

interface DirectIssue {
  FromLinter: string;
  Text: string;
  Pos: { Filename: string; Line: number; Column: number };
}

/** The `Issues` of `golangci-lint run` in the folder (exit 1: issues found). */
function directIssues(dir: string): DirectIssue[] {
  const args = ["run", "--output.json.path", "stdout", "--show-stats=false", "--path-mode", "abs"];
  const run = spawnSync(GOLANGCI, args, {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, GOTOOLCHAIN: "local", GOLANGCI_LINT_CACHE: tempDir("mcq-golangci-cache-") },
  });
  expect(run.status, run.stderr).toBe(1);
  return (JSON.parse(run.stdout) as { Issues: DirectIssue[] }).Issues;
}

const ours = (r: Record<string, unknown>, dir: string) =>
  (r.findings as Finding[]).map((f) => `${path.relative(dir, f.file)}:${f.line} ${f.rule_id}`).sort();

describe.skipIf(missing("go") || missing("golangci-lint", [TOOLS_GO_BIN]))("golangci-lint", () => {
  let project: string;
  let noConfig: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(FIXTURE);
    noConfig = copyFixture(FIXTURE);
    fs.rmSync(path.join(noConfig, ".golangci.yml"));
    s = await connectStdio({
      args: ["--allowed-paths", [project, noConfig].join(","), "--result-cache", "false"],
      cwd: project,
      env: { PATH: PATH_WITH_GO_TOOLS },
    });
  });
  afterAll(async () => s?.close());

  it("lint on a project with .golangci.yml runs golangci-lint with it: what `golangci-lint run` prints, nothing written", async () => {
    const expected = direct(project);
    expect(expected).toEqual(["main.go:12 errcheck", "main.go:14 govet", "store/store.go:9 errcheck"]);
    const before = treeHash(project);
    const r = await s.call("lint", { path: project });
    expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({
      success: true,
      passed: false,
      issue_count: 3,
    });
    expect(ours(r, project)).toEqual(expected);
    expect(r.notes).toContain("linter: golangci-lint (the project's languages: go)");
    expect(r.notes).toContain("config: .golangci.yml");
    expect(r.command).toBe(
      "golangci-lint run --output.json.path stdout --show-stats=false --path-mode abs --max-same-issues=0 --max-issues-per-linter=0 --allow-parallel-runners ./...",
    );
    const printf = (r.findings as (Finding & Record<string, unknown>)[]).find((f) => f.rule_id === "govet");
    expect(printf).toMatchObject({
      tool: "golangci-lint",
      column: 14,
      severity: "warning",
      message: 'printf: fmt.Printf format %d has arg "three" of wrong type string',
    });
    expect(treeHash(project)).toEqual(before);
  });

  it("a sub-folder and a file: that package's findings, that file's", async () => {
    const sub = await s.call("lint", { path: path.join(project, "store"), linter: "golangci-lint" });
    expect(ours(sub, project)).toEqual(["store/store.go:9 errcheck"]);
    const file = await s.call("lint", { path: path.join(project, "main.go"), linter: "golangci-lint" });
    expect(ours(file, project)).toEqual(["main.go:12 errcheck", "main.go:14 govet"]);
  });

  it("without a golangci-lint config, lint runs go vet as before", async () => {
    const r = await s.call("lint", { path: noConfig });
    expect(r).toMatchObject({ success: true, command: "go vet -json ./...", issue_count: 1 });
    expect(ours(r, noConfig)).toEqual(["main.go:14 printf"]);
    expect(r.notes).toContain("linter: govet (the project's languages: go)");
  });

  it("code that does not build: each compiler error golangci-lint's typecheck issue holds is a finding at its position", async () => {
    const broken = copyFixture(FIXTURE);
    fs.writeFileSync(
      path.join(broken, "bad.go"),
      'package main\n\nfunc broken() int {\n\tvar x int = "s"\n\treturn y + undefinedThing\n}\n',
    );
    const t = await connectStdio({
      args: ["--allowed-paths", broken, "--result-cache", "false"],
      cwd: broken,
      env: { PATH: PATH_WITH_GO_TOOLS },
    });
    try {
      // golangci-lint's own JSON: one typecheck issue at the package's first line, the compiler's lines in it.
      const issues = directIssues(broken);
      expect(issues.map((i) => [i.FromLinter, path.relative(broken, i.Pos.Filename), i.Pos.Line])).toEqual([
        ["typecheck", "bad.go", 1],
      ]);
      const compilerLines = (issues[0]?.Text ?? "")
        .split("\n")
        .filter((l) => /^\S+\.go:\d+:\d+: /.test(l))
        .map((l) => l.replace(/^\.\//, ""));
      expect(compilerLines).toHaveLength(4);
      const r = await t.call("lint", { path: broken });
      expect(r).toMatchObject({ success: true, passed: false, issue_count: 4 });
      const findings = r.findings as (Finding & { column: number; message: string; severity: string })[];
      expect(
        findings.map((f) => `${path.relative(broken, f.file)}:${f.line}:${f.column}: ${f.message}`),
      ).toEqual(compilerLines);
      expect(new Set(findings.map((f) => `${f.rule_id} ${f.severity}`))).toEqual(
        new Set(["typecheck error"]),
      );
      // The same errors, at the same places, as type_check (go build) lists them.
      const built = await t.call("type_check", { path: broken, checker: "go" });
      const where = (list: unknown) =>
        (list as { file: string; line: number; column: number; message: string }[])
          .map((f) => `${f.file}:${f.line}:${f.column}: ${f.message}`)
          .sort();
      expect(built).toMatchObject({ success: true, passed: false, issue_count: 4 });
      expect(where(findings)).toEqual(where(built.findings));
    } finally {
      await t.close();
    }
  });

  /** `lint` on a copy of the fixture whose .golangci.yml is `config`, through a server of its own. */
  async function lintWithConfig(config: string): Promise<Record<string, unknown>> {
    const dir = copyFixture(FIXTURE);
    fs.writeFileSync(path.join(dir, ".golangci.yml"), config);
    const t = await connectStdio({
      args: ["--allowed-paths", dir, "--result-cache", "false"],
      cwd: dir,
      env: { PATH: PATH_WITH_GO_TOOLS },
    });
    try {
      return await t.call("lint", { path: dir });
    } finally {
      await t.close();
    }
  }

  it("a config golangci-lint refuses is a tool_error in its words, not a pass", async () => {
    const r = await lintWithConfig('version: "2"\nlinters:\n  enable: [nosuchlinter]\n');
    expect(r).toMatchObject({ success: false, error_type: "tool_error" });
    expect(r.error).toMatch(/^golangci-lint failed: unknown linters: 'nosuchlinter'.* \(exit 3\)/);
  });

  it("a config that loads a Go plugin (code of the project's choosing) is not run, and says why", async () => {
    const r = await lintWithConfig(
      'version: "2"\nlinters:\n  enable: [example]\n  settings:\n    custom:\n      example:\n        path: ./example.so\n',
    );
    expect(r).toMatchObject({ success: false, error_type: "tool_error" });
    expect(r.error).toBe(
      "golangci-lint was not run: .golangci.yml loads Go plugins (linters.settings.custom: example), code the server does not run; run golangci-lint yourself",
    );
  });

  it("configured but not installed: govet runs, and the note says the verdict is not the project's own", async () => {
    const t = await connectStdio({
      args: ["--allowed-paths", project, "--result-cache", "false"],
      cwd: project,
      env: NO_GO_BINS,
    });
    try {
      const r = await t.call("lint", { path: project });
      expect(r).toMatchObject({ success: true, command: "go vet -json ./...", issue_count: 1 });
      expect(r.notes).toContainEqual(
        expect.stringMatching(
          /^the project's golangci-lint config \(\.golangci\.yml\) was not honoured: golangci-lint is not installed, so govet ran instead and this verdict is not the project's own; install: go install /,
        ),
      );
    } finally {
      await t.close();
    }
  });

  it("check . runs golangci-lint, with its findings, and exits 1", async () => {
    const run = await runCheck([".", "--json", "--result-cache", "false"], { cwd: project });
    const json = parseJson(run);
    expect(json.checks.map((c) => [c.id, c.status])).toEqual([
      ["gofmt", "passed"],
      ["golangci-lint", "findings"],
      ["go", "passed"],
    ]);
    expect(
      json.findings
        .filter((f) => f.check === "golangci-lint")
        .map((f) => `${f.file}:${f.line} ${f.rule_id}`)
        .sort(),
    ).toEqual(direct(project));
    expect(run.status).toBe(1);
  }, 120_000);

  it("check . with golangci-lint configured but not installed: the project is not checked as it means, exit 3", async () => {
    const run = await runCheck([".", "--json", "--result-cache", "false"], { cwd: project, env: NO_GO_BINS });
    const json = parseJson(run);
    expect(json.checks.map((c) => [c.id, c.status])).toEqual([
      ["gofmt", "passed"],
      ["golangci-lint", "skipped"],
      ["govet", "findings"],
      ["go", "passed"],
    ]);
    const skipped = json.checks.find((c) => c.id === "golangci-lint");
    expect(skipped?.reason).toBe(`not installed; install: ${INSTALL_REASON}`);
    expect(json.not_checked).toEqual([
      { target: project, reasons: [`golangci-lint skipped: not installed; install: ${INSTALL_REASON}`] },
    ]);
    expect(run.status).toBe(3);
    const text = await runCheck(["."], { cwd: project, env: NO_GO_BINS });
    expect(text.stdout).toMatch(/golangci-lint\s+lint\s+skipped: not installed/);
    expect(text.stdout).toContain(
      `Not checked:\n  .: golangci-lint skipped: not installed; install: ${INSTALL_REASON}\n`,
    );
    expect(text.status).toBe(3);
  }, 120_000);

  it("configured but not installed, and govet finds nothing: still not a pass (exit 3, the project named)", async () => {
    const clean = copyFixture(FIXTURE);
    const main = path.join(clean, "main.go");
    fs.writeFileSync(
      main,
      fs.readFileSync(main, "utf8").replace('"%d items\\n", "three"', '"%s items\\n", "three"'),
    );
    const run = await runCheck(["--json", "--result-cache", "false", clean], {
      cwd: project,
      env: NO_GO_BINS,
    });
    const json = parseJson(run);
    expect(json.checks.map((c) => [c.id, c.status])).toEqual([
      ["gofmt", "passed"],
      ["golangci-lint", "skipped"],
      ["govet", "passed"],
      ["go", "passed"],
    ]);
    expect(json.not_checked).toEqual([
      { target: clean, reasons: [`golangci-lint skipped: not installed; install: ${INSTALL_REASON}`] },
    ]);
    expect(json.exit_code).toBe(3);
    expect(run.status).toBe(3);
    // With golangci-lint installed the same project is checked as it means: its errcheck findings, exit 1.
    const installed = await runCheck(["--json", "--result-cache", "false", clean], { cwd: project });
    expect(parseJson(installed).not_checked).toEqual([]);
    expect(installed.status).toBe(1);
  }, 120_000);

  it("the result cache keys the config golangci-lint reads, also one above the module (a monorepo root's)", async () => {
    const root = tempDir("mcq-golangci-mono-");
    fs.cpSync(FIXTURE, path.join(root, "svc"), { recursive: true });
    fs.renameSync(path.join(root, "svc", ".golangci.yml"), path.join(root, ".golangci.yml"));
    const t = await connectStdio({
      args: ["--allowed-paths", root, "--result-cache", "true", "--result-cache-dir", tempDir("mcq-rc-")],
      cwd: root,
      env: { PATH: PATH_WITH_GO_TOOLS },
    });
    const svc = path.join(root, "svc");
    try {
      const first = await t.call("lint", { path: svc });
      expect(ours(first, svc)).toEqual(direct(svc));
      expect(ours(first, svc)).toContain("main.go:12 errcheck");
      const again = await t.call("lint", { path: svc });
      expect(first.cached).toMatch(/^0 of \d+ files$/);
      expect(again.cached).toMatch(/^(\d+) of \1 files$/);
      expect(ours(again, svc)).toEqual(ours(first, svc));
      // The root's config now enables ineffassign too: a fresh run, as golangci-lint run gives.
      fs.writeFileSync(
        path.join(root, ".golangci.yml"),
        'version: "2"\nlinters:\n  default: none\n  enable: [errcheck, govet, ineffassign]\n',
      );
      const changed = await t.call("lint", { path: svc });
      expect(ours(changed, svc)).toEqual(direct(svc));
      expect(ours(changed, svc)).toContain("main.go:16 ineffassign");
      expect(changed.cached).toMatch(/^0 of \d+ files$/);
    } finally {
      await t.close();
    }
  });

  /** A server with the result cache on, over `dir`. */
  const cachedServer = (dir: string) =>
    connectStdio({
      args: ["--allowed-paths", dir, "--result-cache", "true", "--result-cache-dir", tempDir("mcq-rc-")],
      cwd: dir,
      env: { PATH: PATH_WITH_GO_TOOLS },
    });

  it("editing the module's .golangci.yml (a linter enabled) is a fresh run, as golangci-lint run gives, never the cached result", async () => {
    const dir = copyFixture(FIXTURE);
    const t = await cachedServer(dir);
    try {
      const first = await t.call("lint", { path: dir });
      const again = await t.call("lint", { path: dir });
      expect(again.cached).toMatch(/^(\d+) of \1 files$/);
      expect(ours(again, dir)).toEqual(ours(first, dir));
      expect(ours(first, dir)).not.toContain("main.go:16 ineffassign");
      fs.writeFileSync(
        path.join(dir, ".golangci.yml"),
        'version: "2"\nlinters:\n  default: none\n  enable: [errcheck, govet, ineffassign]\n',
      );
      const changed = await t.call("lint", { path: dir });
      expect(changed.cached).toMatch(/^0 of \d+ files$/);
      expect(ours(changed, dir)).toEqual(direct(dir));
      expect(ours(changed, dir)).toContain("main.go:16 ineffassign");
      // A config passed as `config` is keyed by its content too.
      const ci = path.join(dir, "ci");
      fs.mkdirSync(ci);
      fs.writeFileSync(
        path.join(ci, "lint.yml"),
        'version: "2"\nlinters:\n  default: none\n  enable: [errcheck]\n',
      );
      const named = await t.call("lint", {
        path: dir,
        linter: "golangci-lint",
        config: path.join(ci, "lint.yml"),
      });
      expect(ours(named, dir)).toEqual(["main.go:12 errcheck", "store/store.go:9 errcheck"]);
      fs.writeFileSync(
        path.join(ci, "lint.yml"),
        'version: "2"\nlinters:\n  default: none\n  enable: [govet]\n',
      );
      const renamed = await t.call("lint", {
        path: dir,
        linter: "golangci-lint",
        config: path.join(ci, "lint.yml"),
      });
      expect(renamed.cached).toMatch(/^0 of \d+ files$/);
      expect(ours(renamed, dir)).toEqual(["main.go:14 govet"]);
    } finally {
      await t.close();
    }
  });

  it("a file the config names (goheader's template-path) is keyed by content: editing it is a fresh run", async () => {
    const dir = copyFixture(FIXTURE);
    fs.writeFileSync(
      path.join(dir, ".golangci.yml"),
      'version: "2"\nlinters:\n  default: none\n  enable: [goheader]\n  settings:\n    goheader:\n      template-path: header.txt\n',
    );
    fs.writeFileSync(path.join(dir, "header.txt"), "Copyright ACME");
    const storeGo = path.join(dir, "store", "store.go");
    fs.writeFileSync(storeGo, `// Store counts.\n\n${fs.readFileSync(storeGo, "utf8")}`);
    const t = await cachedServer(dir);
    try {
      const first = await t.call("lint", { path: dir });
      expect(ours(first, dir)).toEqual(direct(dir));
      expect(ours(first, dir)).toEqual(["main.go:1 goheader", "store/store.go:1 goheader"]);
      const again = await t.call("lint", { path: dir });
      expect(again.cached).toMatch(/^(\d+) of \1 files$/);
      // Only the template changes (a .txt no project file list holds): now store.go begins with it.
      fs.writeFileSync(path.join(dir, "header.txt"), "Store counts.");
      const changed = await t.call("lint", { path: dir });
      expect(changed.cached).toMatch(/^0 of \d+ files$/);
      expect(ours(changed, dir)).toEqual(direct(dir));
      expect(ours(changed, dir)).toEqual(["main.go:1 goheader"]);
    } finally {
      await t.close();
    }
  });
});
