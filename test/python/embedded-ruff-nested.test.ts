/**
 * Ruff's hierarchical configuration, embedded ruff against the ruff CLI of its version (0.17.4) on the same
 * tree: each file gets the nearest config above it (a nested ruff.toml or pyproject.toml with [tool.ruff]
 * does not inherit its parent's settings unless it `extend`s them), a nested config's excludes apply to its
 * own folder, and exclude patterns are made absolute from their config's folder (a trailing `/` goes; `*`
 * crosses `/`, as in the globset crate). The same files, findings and unformatted files, file for file.
 * Found on pylint, whose doc/data/ruff.toml the embedded path ignored (6,905 findings where the CLI has none).
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";
import { embeddedScope } from "../../src/adapters/python/ruff-embedded.js";

const CLI_BIN = path.join(REPO_ROOT, ".tools", "ruff-embedded", "bin");
const RUFF = path.join(CLI_BIN, "ruff");
/** No ruff on PATH: the server uses the embedded build. */
const ENV = { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined };

/** A line of Python `n` characters long (a string assignment the formatter leaves alone). */
const long = (n: number) => `x = "${"a".repeat(n - 6)}"\n`;
const UNSORTED = "import sys\nimport os\n\nprint(sys, os)\n";
/** A call the formatter splits at line-length 60, and leaves on one line at 80 and more. */
const CALL = "result = print(argument_number_one, argument_number_two, argument_three)\n";

const TREE: Record<string, string> = {
  "pyproject.toml": [
    "[tool.ruff]",
    "line-length = 120",
    // Trailing-slash, `**` and `*` excludes, anchored at this folder.
    'extend-exclude = ["skipped/", "deep/**/gen/", "star/*.py", "alt_{one,two}.py", "cls_[ab].py", "q?.py"]',
    "[tool.ruff.lint]",
    'select = ["E501", "F401"]',
    "",
  ].join("\n"),
  "top.py": `import os\n\n${long(100)}${CALL}`,
  "skipped/x.py": "import os\n",
  "deep/gen/z.py": "import os\n",
  "deep/a/b/gen/y.py": "import os\n",
  "star/w.py": "import os\n",
  // `star/*.py` matches here too: `*` crosses `/`.
  "star/inner/w.py": "import os\n",
  // Alternates, a character class and `?`, tried on the name as well (the patterns have no `/`).
  "alt_one.py": "import os\n",
  "alt_three.py": "import os\n",
  "cls_a.py": "import os\n",
  "cls_c.py": "import os\n",
  // `q?.py` by name below the root and in the config extending it; not under nested_py's own config.
  "nested_ext/q1.py": "import os\n",
  "nested_py/q1.py": "import os\n",
  // Other rules, a shorter line, an exclude and a per-file ignore of its own; none of the root's.
  "nested_toml/ruff.toml": [
    "line-length = 60",
    'extend-exclude = ["local_skip.py"]',
    "[lint]",
    'select = ["E501", "I", "INP001"]',
    "[lint.per-file-ignores]",
    '"sub/*" = ["I"]',
    "",
  ].join("\n"),
  "nested_toml/a.py": `${UNSORTED}${long(70)}${CALL}`,
  "nested_toml/local_skip.py": `${UNSORTED}${long(70)}`,
  // The root's `skipped/` is the root's skipped folder only.
  "nested_toml/skipped/x.py": UNSORTED,
  "nested_toml/sub/deeper/b.py": `${UNSORTED}${long(70)}`,
  // A nested pyproject.toml with [tool.ruff]: pyflakes only, single quotes.
  "nested_py/pyproject.toml": [
    "[tool.ruff]",
    "line-length = 200",
    "[tool.ruff.lint]",
    'select = ["F"]',
    "[tool.ruff.format]",
    'quote-style = "single"',
    "",
  ].join("\n"),
  "nested_py/c.py": `import os\n\n${long(130)}`,
  // A package's `__init__.py` has `__path__` (no F821 there), which the CLI knows from the name.
  "nested_py/pkg/__init__.py": "print(__path__)\n",
  // Extends the root's settings: its rules and excludes, the excludes still anchored at the root.
  "nested_ext/ruff.toml": 'extend = "../pyproject.toml"\nline-length = 80\n',
  "nested_ext/d.py": `import os\n\n${long(100)}${CALL}`,
  "nested_ext/star/v.py": "import os\n",
  "nested_ext/skipped/x.py": "import os\n",
  // A pyproject.toml without [tool.ruff] is no config: the root's settings hold.
  "nested_noruff/pyproject.toml": '[project]\nname = "noruff"\n',
  "nested_noruff/e.py": long(130),
};

function writeTree(dir: string, tree: Record<string, string>): void {
  for (const [rel, text] of Object.entries(tree)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}

/** The CLI's output in `dir` (exit 1 for findings is not a failure). */
function ruff(dir: string, args: string[]): string {
  const [command, ...rest] = args;
  const run = spawnSync(RUFF, [command as string, "--no-cache", ...rest], { cwd: dir, encoding: "utf8" });
  expect(run.status, run.stderr).toBeLessThan(2);
  return run.stdout;
}

/** `ruff check` in `dir`: its concise lines, without the `[*]` fix markers. */
function cliIssues(dir: string, target = "."): string[] {
  return ruff(dir, ["check", "--no-fix", "--output-format", "concise", target])
    .split("\n")
    .filter((l) => /^[^\s:][^:]*:\d+:\d+: /.test(l))
    .map((l) => l.replace(" [*]", ""))
    .sort();
}

/** The Python files `ruff check --show-files` lists, relative to `dir`. */
function cliFiles(dir: string): string[] {
  return ruff(dir, ["check", "--show-files", "."])
    .split("\n")
    .filter((l) => /\.pyi?$/.test(l))
    .map((l) => path.relative(dir, l))
    .sort();
}

/** The files `ruff format --check` would reformat, relative to `dir`. */
function cliUnformatted(dir: string): string[] {
  const out = ruff(dir, ["format", "--check", "--output-format", "concise", "."]);
  return [...new Set(out.split("\n").flatMap((l) => /^(\S+\.pyi?):\d+:\d+: /.exec(l)?.[1] ?? []))].sort();
}

let dir: string;
let server: Connected;

beforeAll(async () => {
  dir = tempDir("mcq-ruff-nested-");
  writeTree(dir, TREE);
  server = await connectStdio({
    args: ["--allowed-paths", dir, "--rate-limit", "false", "--result-cache", "false"],
    cwd: dir,
    env: ENV,
  });
});

afterAll(async () => {
  await server?.close();
});

async function embeddedIssues(target = "."): Promise<string[]> {
  const r = await server.call("lint", { path: target, linter: "ruff", max_result_tokens: 50_000 });
  expect(r.command).toMatch(/\(embedded\)$/);
  return [...(r.issues as string[])].sort();
}

describe.skipIf(missing("ruff", [CLI_BIN]))("nested ruff configs: embedded ruff and the ruff CLI", () => {
  it("is the CLI of the embedded version", () => {
    expect(execFileSync(RUFF, ["--version"], { encoding: "utf8" }).trim()).toBe("ruff 0.17.4");
  });

  it("find the same files (nested excludes, trailing-slash, `**` and `*` excludes)", () => {
    const cli = cliFiles(dir);
    // What the fixture is for: each exclude as the CLI applies it.
    expect(cli).toEqual([
      "alt_three.py",
      "cls_c.py",
      "nested_ext/d.py",
      "nested_ext/skipped/x.py",
      "nested_ext/star/v.py",
      "nested_noruff/e.py",
      "nested_py/c.py",
      "nested_py/pkg/__init__.py",
      "nested_py/q1.py",
      "nested_toml/a.py",
      "nested_toml/skipped/x.py",
      "nested_toml/sub/deeper/b.py",
      "top.py",
    ]);
    const embedded = embeddedScope(dir, dir, undefined).files.map((f) => path.relative(dir, f));
    expect(embedded.sort()).toEqual(cli);
  });

  it("report the same findings, each file under its nearest config", async () => {
    const cli = cliIssues(dir);
    expect(cli).toEqual(
      expect.arrayContaining([
        "nested_toml/a.py:1:1: I001 Import block is un-sorted or un-formatted",
        "nested_toml/a.py:5:61: E501 Line too long (70 > 60)",
        // Not for a.py: the nested config's folder is a `src` root of its own. Named from the project root,
        // as the CLI run there names it, not from the nested config's folder.
        "nested_toml/sub/deeper/b.py:1:1: INP001 File `nested_toml/sub/deeper/b.py` is part of an implicit namespace package. Add an `__init__.py`.",
        "nested_toml/sub/deeper/b.py:5:61: E501 Line too long (70 > 60)",
        "nested_py/c.py:1:8: F401 `os` imported but unused",
        "nested_ext/d.py:3:81: E501 Line too long (100 > 80)",
        "nested_noruff/e.py:1:121: E501 Line too long (130 > 120)",
      ]),
    );
    expect(await embeddedIssues()).toEqual(cli);
  });

  it("format the same files (line-length and quote style from the nearest config)", async () => {
    const cli = cliUnformatted(dir);
    expect(cli).toEqual(["nested_py/c.py", "nested_toml/a.py"]);
    const r = await server.call("format_check", { path: ".", language: "python" });
    expect(r.command).toMatch(/\(embedded\)$/);
    expect([...(r.unformatted_files as string[])].sort()).toEqual(cli);
  });
});

describe.skipIf(missing("ruff", [CLI_BIN]))("nested ruff configs through the result cache", () => {
  it("an edit of a nested ruff.toml, or of a file it extends outside the target, changes the answer", async () => {
    const root = tempDir("mcq-ruff-nested-cache-");
    // No config for the folder linted; one below it, extending a file outside it.
    writeTree(root, {
      "shared/base.toml": '[lint]\nselect = ["F401", "E501"]\n',
      "app/svc/ruff.toml": 'extend = "../../shared/base.toml"\nline-length = 100\n',
      "app/svc/m.py": `import os\n${long(90)}`,
    });
    const cached = await connectStdio({
      args: [
        ...["--allowed-paths", root, "--rate-limit", "false"],
        ...["--result-cache", "true", "--result-cache-dir", tempDir("mcq-nested-cache-")],
      ],
      cwd: root,
      env: { ...ENV, XDG_CACHE_HOME: tempDir("mcq-xdg-") },
    });
    const lint = async () => {
      const r = await cached.call("lint", { path: "app", linter: "ruff" });
      expect(r.command).toMatch(/\(embedded\)$/);
      return { cached: r.cached, issues: [...(r.issues as string[])].sort() };
    };
    try {
      const first = cliIssues(root, "app");
      expect(first).toEqual(["app/svc/m.py:1:8: F401 `os` imported but unused"]);
      expect((await lint()).issues).toEqual(first);
      expect(await lint()).toEqual({ cached: "1 of 1 file", issues: first });
      // The nested ruff.toml, inside the linted folder.
      fs.writeFileSync(
        path.join(root, "app/svc/ruff.toml"),
        'extend = "../../shared/base.toml"\nline-length = 80\n',
      );
      const second = cliIssues(root, "app");
      expect(second).toContain("app/svc/m.py:2:81: E501 Line too long (90 > 80)");
      expect((await lint()).issues).toEqual(second);
      // Only the file it extends, outside the linted folder.
      fs.writeFileSync(path.join(root, "shared/base.toml"), '[lint]\nselect = ["E501"]\n');
      const last = cliIssues(root, "app");
      expect(last).toEqual(["app/svc/m.py:2:81: E501 Line too long (90 > 80)"]);
      expect((await lint()).issues).toEqual(last);
    } finally {
      await cached.close();
    }
  });
});
