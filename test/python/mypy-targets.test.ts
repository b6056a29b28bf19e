/**
 * What type_check with mypy checks when the project's config names no files: the paths its CI runs mypy on
 * (encode/httpx's scripts/check: `mypy httpx tests`), else the project without its virtualenvs, dependency,
 * build and cache folders (`mypy -- $PROJECT` walked into venv/ and reported venv/bin/activate_this.py).
 * Real mypy through the real server, compared with mypy run directly; the CI readers on real file shapes.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  mypyCiTargets,
  mypyTargetsInNoxfile,
  mypyTargetsInPreCommit,
  mypyTargetsInScript,
  shellWords,
} from "../../src/adapters/python/ci-targets.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir } from "../helpers/tools.js";

/** A virtualenv as uv and virtualenv make them: pyvenv.cfg and an activate_this.py mypy finds wrong. */
function plantVirtualenv(dir: string): void {
  fs.mkdirSync(path.join(dir, "venv", "bin"), { recursive: true });
  fs.writeFileSync(path.join(dir, "venv", "pyvenv.cfg"), "home = /usr/bin\n");
  fs.writeFileSync(
    path.join(dir, "venv", "bin", "activate_this.py"),
    'import sys\n\nprefix: str = sys.real_prefix  # type: ignore[attr-defined]\nbroken: int = "venv"\n',
  );
}

describe("the paths a project's CI runs mypy on", () => {
  it("splits shell words: quotes, operators, comments", () => {
    expect(shellWords(`\${PREFIX}mypy "src dir" 'x' --strict && echo ok # done`)).toEqual([
      "${PREFIX}mypy",
      "src dir",
      "x",
      "--strict",
      "&&",
      "echo",
      "ok",
    ]);
  });

  it("reads scripts, Makefiles, tox.ini, workflows and noxfiles; skips packages and missing paths", () => {
    const dir = tempDir("mcq-ci-targets-");
    for (const d of ["src", "tests", "httpx"]) fs.mkdirSync(path.join(dir, d));
    const abs = (...p: string[]) => p.map((x) => path.join(dir, x));
    expect(
      mypyTargetsInScript(
        'export PREFIX=""\nexport SOURCE_FILES="httpx tests"\nset -x\n${PREFIX}ruff check $SOURCE_FILES\n${PREFIX}mypy $SOURCE_FILES\n',
        dir,
      ),
    ).toEqual({ targets: abs("httpx", "tests"), command: "mypy httpx tests", flags: [] });
    expect(
      mypyTargetsInScript(
        "SRC := src tests\n\ntypecheck:\n\t$(PYTHON) -m mypy --strict $(SRC) 2>&1 | tee log\n",
        dir,
      ),
    ).toEqual({ targets: abs("src", "tests"), command: "mypy --strict src tests", flags: ["--strict"] });
    expect(
      mypyTargetsInScript(
        "[testenv:type]\ncommands =\n    mypy --config-file setup.cfg src {posargs}\n",
        dir,
      ),
    ).toEqual({
      targets: abs("src"),
      command: "mypy --config-file setup.cfg src {posargs}",
      flags: [],
    });
    expect(
      mypyTargetsInScript(
        "jobs:\n  check:\n    steps:\n      - run: pip install mypy\n      - run: mypy src\n",
        dir,
      ),
    ).toEqual({ targets: abs("src"), command: "mypy src", flags: [] });
    expect(
      mypyTargetsInNoxfile(
        '@nox.session\ndef types(session):\n    session.run("mypy", "src", "tests")\n',
        dir,
      ),
    ).toEqual({ targets: abs("src", "tests"), command: "mypy src tests", flags: [] });
    // Packages and modules are not paths; a path that does not exist is not followed; `pip install mypy` names none.
    expect(mypyTargetsInScript("mypy -p httpx\nmypy nowhere\npip install mypy\n", dir)).toBeUndefined();
    fs.mkdirSync(path.join(dir, "scripts"));
    fs.writeFileSync(path.join(dir, "scripts", "lint"), "mypy src\n");
    fs.writeFileSync(path.join(dir, "Makefile"), "check:\n\tmypy tests\n");
    expect(mypyCiTargets(dir)).toEqual({
      targets: abs("src"),
      command: "mypy src",
      source: "scripts/lint",
      flags: [],
    });
  });

  it("reads pre-commit's mypy hook (termcolor's shape): its paths with pass_filenames false, its checking flags", () => {
    const dir = tempDir("mcq-ci-pre-commit-");
    for (const d of ["src", "tests"]) fs.mkdirSync(path.join(dir, d));
    const config = (hook: string) =>
      `repos:\n  - repo: https://github.com/pre-commit/mirrors-mypy\n    rev: v2.1.0\n    hooks:\n${hook}`;
    expect(
      mypyTargetsInPreCommit(
        config(
          "      - id: mypy\n        args: [--strict, --pretty, --show-error-codes, --python-version, '3.11', src, tests]\n        pass_filenames: false\n        additional_dependencies: [pytest]\n",
        ),
        dir,
      ),
    ).toEqual({
      targets: [path.join(dir, "src"), path.join(dir, "tests")],
      command: "mypy --strict --pretty --show-error-codes --python-version 3.11 src tests",
      // --pretty is an output flag (ours to choose), --python-version takes a value: neither is passed on.
      flags: ["--strict"],
    });
    // Handed the staged files (pass_filenames by default): no paths of its own.
    expect(
      mypyTargetsInPreCommit(config("      - id: mypy\n        args: [--strict]\n"), dir),
    ).toBeUndefined();
    // A local hook whose entry is mypy.
    expect(
      mypyTargetsInPreCommit(
        "repos:\n  - repo: local\n    hooks:\n      - id: types\n        name: types\n        entry: mypy --warn-unused-ignores src\n        language: system\n        pass_filenames: false\n",
        dir,
      ),
    ).toMatchObject({ targets: [path.join(dir, "src")], flags: ["--warn-unused-ignores"] });
    expect(mypyTargetsInPreCommit("repos: [", dir)).toBeUndefined();
  });
});

describe.skipIf(missing("mypy"))("type_check with mypy on a project whose config names no files", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = copyFixture(path.join(FIXTURES, "python", "mypy-ci-targets"));
    plantVirtualenv(project);
    s = await connectStdio({
      args: ["--allowed-paths", project, "--rate-limit", "false"],
      cwd: project,
      env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
    });
  });
  afterAll(async () => s?.close());

  const mypy = (...args: string[]) =>
    spawnSync("mypy", ["--no-error-summary", "--cache-dir", "/dev/null", ...args], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, PATH: "/usr/bin:/bin" },
    });

  it("runs what scripts/check runs (`mypy pkg tests`), as the project's CI does", async () => {
    expect(mypy("pkg", "tests")).toMatchObject({ status: 0, stdout: "" });
    const r = await s.call("type_check", { path: ".", checker: "mypy" });
    expect(r).toMatchObject({ success: true, passed: true, issue_count: 0, returncode: 0 });
    expect(r.command).toMatch(new RegExp(` -- ${project}/pkg ${project}/tests$`));
    expect(r.notes).toContain("checked as the project's CI runs it: scripts/check runs `mypy pkg tests`");
  });

  it("without a CI script: the project, its virtualenv left out (as mypy --exclude would), never a stale hit", async () => {
    fs.rmSync(path.join(project, "scripts"), { recursive: true });
    // mypy itself walks into venv/ (two errors there); the project's own code has the one in docs/.
    expect(mypy(".").stdout).toMatch(/^venv\/bin\/activate_this\.py:4: error/m);
    const own = mypy("--exclude", "^venv/", ".");
    expect(own.stdout.trim().split("\n")).toEqual([
      'docs/example.py:2: error: Incompatible types in assignment (expression has type "str", variable has type "int")  [assignment]',
    ]);
    const r = await s.call("type_check", { path: ".", checker: "mypy" });
    expect(r).toMatchObject({ success: true, passed: false, issue_count: 1 });
    expect(r.issues).toEqual([
      'docs/example.py:2:14: assignment Incompatible types in assignment (expression has type "str", variable has type "int")',
    ]);
    expect(r.command).toMatch(new RegExp(` --exclude '\\^venv/' -- ${project}$`));
    expect(r.notes).toContain("not checked (virtualenvs, dependency, build and cache folders): venv");
  });

  it("with pre-commit's mypy hook: its paths and its --strict, as `mypy --strict pkg tests` run by hand", async () => {
    fs.writeFileSync(
      path.join(project, ".pre-commit-config.yaml"),
      "repos:\n  - repo: https://github.com/pre-commit/mirrors-mypy\n    rev: v1.15.0\n    hooks:\n      - id: mypy\n        args: [--strict, --pretty, pkg, tests]\n        pass_filenames: false\n",
    );
    fs.writeFileSync(path.join(project, "pkg", "untyped.py"), "def double(x):\n    return x * 2\n");
    // Without --strict the unannotated function passes; the project's own run reports it.
    expect(mypy("pkg", "tests")).toMatchObject({ status: 0, stdout: "" });
    const own = mypy("--strict", "--show-column-numbers", "pkg", "tests");
    expect(own.status).toBe(1);
    const rows = (lines: string[]) => lines.map((l) => /^([^:]+:\d+):/.exec(l)?.[1]).sort();
    const r = await s.call("type_check", { path: ".", checker: "mypy" });
    expect(r).toMatchObject({ success: true, passed: false });
    expect(r.command).toMatch(/ --strict /);
    expect(rows(r.issues as string[])).toEqual(rows(own.stdout.trim().split("\n")));
    expect(rows(r.issues as string[])).toContain("pkg/untyped.py:1");
    expect(r.notes).toContain(
      "checked as the project's CI runs it: .pre-commit-config.yaml runs `mypy --strict --pretty pkg tests`",
    );
  });
});
