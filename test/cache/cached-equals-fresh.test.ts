/**
 * Every cached tool: the result served from the result cache (whole, after a one-file edit with the rest
 * from the cache, and after each kind of change that decides a verdict: a new file, a new file of a kind
 * only the configuration adds, a config in the tree, a file the configuration pulls in from outside the
 * project) is the same, byte for byte, as the result of a server without a cache on the same tree, apart
 * from timings, the cache markers and the notes naming a worker's process.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const PATH = `${TOOLS_VENV_BIN}:${process.env.PATH}`;

/** A result without what differs between any two runs: durations, the cache markers, worker pids. */
function comparable(result: Record<string, unknown>): string {
  return JSON.stringify(result, (key, value: unknown) => {
    if (key === "duration_ms" || key === "durationMs" || key === "cached" || key === "uncached")
      return undefined;
    // A run's own note, and a false one: `file:///` in cargo's messages read as a hidden path (fixed on the
    // `results` branch, f08a8fc); a hit runs nothing, so it has neither.
    if (key === "notes" && Array.isArray(value))
      return value.filter((n) => typeof n !== "string" || !/\bpid \d+| could not see \/\/\//.test(n));
    return value;
  });
}

/** Files by path relative to a case's folder: the project is `project/`, what lies beside it `shared/`. */
type Files = Record<string, string>;

interface Case {
  name: string;
  /** Programs the case needs (besides the bundled ones). */
  needs: string[];
  /** Copied to `project/` (none: the project is all in `extra`). */
  fixture?: string;
  tool: string;
  args: Record<string, unknown>;
  /** Files written before the first call. */
  extra?: Files;
  /** The file to edit (in the project), and the line appended (it changes the result). */
  edit: [string, string];
  /** Keyed by the whole input set (runs whole after an edit), besides type_check and flake8. */
  whole?: boolean;
  /** The changes walked after the edit, in order: each changes the result. */
  changes?: [string, Files][];
}

const NEW_FILE = "a new file";
const NEW_KIND = "a new file of a kind only the config adds";
const CONFIG = "a config in the tree";
const OUTSIDE = "a file the config pulls in from outside the project";

/** lint-project's pyproject.toml, extending ../shared/ruff.toml and including *.pyw files. */
function ruffProject(extra = ""): string {
  return [
    '[project]\nname = "lint-project"\nversion = "0.1.0"\n',
    '[tool.ruff]\nline-length = 100\nextend = "../shared/ruff.toml"\nextend-include = ["*.pyw"]',
    `extend-exclude = ["legacy"${extra}]\n`,
    '[tool.ruff.lint]\nextend-select = ["E711"]\n',
    '[tool.ruff.lint.per-file-ignores]\n"__init__.py" = ["F401"]\n',
  ].join("\n");
}

const RUFF_EXTRA: Files = {
  "project/pyproject.toml": ruffProject(),
  "shared/ruff.toml": "[lint]\nignore = []\n",
};

/** A JavaScript project whose eslint.config.js takes its rules from ../shared/rules.js. */
function eslintConfig(more = ""): string {
  return `import { rules } from "../shared/rules.js";\n\nexport default [{ files: ["**/*.js", "**/*.es6"], rules: { ...rules${more} } }];\n`;
}

const CASES: Case[] = [
  {
    name: "ruff check",
    needs: ["ruff"],
    fixture: "python/lint-project",
    tool: "lint",
    args: { linter: "ruff" },
    extra: RUFF_EXTRA,
    edit: ["pkg/clean.py", "import json\n"],
    changes: [
      [NEW_FILE, { "project/pkg/added.py": "import sys\n" }],
      [NEW_KIND, { "project/pkg/script.pyw": "import os\n" }],
      [CONFIG, { "project/pyproject.toml": ruffProject(', "pkg/app.py"') }],
      [OUTSIDE, { "shared/ruff.toml": '[lint]\nignore = ["F401"]\n' }],
    ],
  },
  {
    name: "ruff format --check",
    needs: ["ruff"],
    fixture: "python/lint-project",
    tool: "format_check",
    args: { language: "python" },
    // indented.py is formatted until the shared config sets another indent width.
    extra: { ...RUFF_EXTRA, "project/pkg/indented.py": "def h():\n    return 4\n" },
    edit: ["pkg/clean.py", "x  =  1\n"],
    changes: [
      [NEW_FILE, { "project/pkg/added.py": "y  =  2\n" }],
      [NEW_KIND, { "project/pkg/script.pyw": "z  =  3\n" }],
      ["a Markdown file", { "project/README.md": "# r\n\n```python\nx  =  1\n```\n" }],
      [CONFIG, { "project/pyproject.toml": ruffProject(', "pkg/app.py"') }],
      [OUTSIDE, { "shared/ruff.toml": "indent-width = 2\n" }],
    ],
  },
  {
    name: "black --check",
    needs: ["black"],
    fixture: "python/lint-project",
    tool: "format_check",
    args: { language: "python", formatter: "black" },
    edit: ["pkg/clean.py", "x  =  1\n"],
    changes: [
      [NEW_FILE, { "project/pkg/added.py": "y  =  2\n" }],
      [
        CONFIG,
        {
          "project/pyproject.toml":
            '[project]\nname = "lint-project"\n\n[tool.black]\nextend-exclude = "app"\n',
        },
      ],
    ],
  },
  {
    name: "flake8 (whole project)",
    needs: ["flake8"],
    fixture: "python/lint-project",
    tool: "lint",
    args: { linter: "flake8" },
    edit: ["pkg/clean.py", "import json\n"],
    changes: [
      [NEW_FILE, { "project/pkg/added.py": "import sys\n" }],
      [CONFIG, { "project/.flake8": "[flake8]\nextend-ignore = F401\n" }],
    ],
  },
  {
    name: "eslint",
    needs: [],
    tool: "lint",
    args: { linter: "eslint", format: "full" },
    extra: {
      "project/package.json": '{ "name": "app", "type": "module", "private": true }\n',
      "project/eslint.config.js": eslintConfig(),
      "project/src/a.js": "export const a = 1;\n",
      "project/src/other.js": "export const other = 1;\n",
      "shared/package.json": '{ "type": "module" }\n',
      "shared/rules.js": 'export const rules = { "no-unused-vars": "error" };\n',
    },
    edit: ["src/other.js", "let unused = 2;\n"],
    changes: [
      [NEW_FILE, { "project/src/added.js": "let alsoUnused = 3;\n" }],
      [NEW_KIND, { "project/src/b.es6": "let es6Unused = 4;\n" }],
      [CONFIG, { "project/eslint.config.js": eslintConfig(', "prefer-const": "error"') }],
      [OUTSIDE, { "shared/rules.js": 'export const rules = { "no-unused-vars": "off" };\n' }],
    ],
  },
  {
    name: "prettier --check",
    needs: [],
    fixture: "check/js",
    tool: "format_check",
    args: { formatter: "prettier" },
    // formatted.ts is formatted until the config drops semicolons.
    extra: {
      "project/src/other.ts": "export const other = 1;\n",
      "project/src/formatted.ts": "export const formatted = 1;\n",
    },
    edit: ["src/other.ts", "const  spaced  =  2;\n"],
    changes: [
      [NEW_FILE, { "project/src/added.ts": "export const  added = 3;\n" }],
      [CONFIG, { "project/.prettierrc.json": '{ "semi": false }\n' }],
    ],
  },
  {
    name: "rubocop",
    needs: ["rubocop"],
    fixture: "ruby/project",
    tool: "lint",
    args: { linter: "rubocop" },
    extra: {
      "project/.rubocop.yml":
        "inherit_from: ../shared/base.yml\n\nAllCops:\n  NewCops: enable\n  TargetRubyVersion: 3.1\n  SuggestExtensions: false\n\nStyle/Documentation:\n  Enabled: false\n",
      "shared/base.yml": "Style/StringConcatenation:\n  Enabled: true\n",
    },
    edit: ["app.rb", "x = 1\n"],
    changes: [
      [NEW_FILE, { "project/lib/added.rb": "y = 2\n" }],
      [OUTSIDE, { "shared/base.yml": "Style/StringConcatenation:\n  Enabled: false\n" }],
      [
        CONFIG,
        {
          "project/.rubocop.yml":
            "inherit_from: ../shared/base.yml\n\nAllCops:\n  NewCops: enable\n  TargetRubyVersion: 3.1\n  SuggestExtensions: false\n\nStyle/Documentation:\n  Enabled: false\n\nLint/UselessAssignment:\n  Enabled: false\n",
        },
      ],
    ],
  },
  {
    name: "rubocop (format full, with corrections)",
    needs: ["rubocop"],
    fixture: "ruby/project",
    tool: "lint",
    args: { linter: "rubocop", format: "full" },
    edit: ["app.rb", "x = 1\n"],
  },
  {
    // Each file's parse is kept by its content; whether its links resolve is decided on every call.
    name: "markdown links",
    needs: [],
    tool: "check_markdown_links",
    args: { check_external: false },
    extra: {
      "project/README.md": "# Top\n\nSee [the setup](docs/guide.md#setup) and [other](docs/other.md).\n",
      "project/docs/guide.md": "# Guide\n\n## Setup\n\nBack to [the top](../README.md#top).\n",
      "project/docs/other.md": "# Other\n",
    },
    edit: ["README.md", "\n[gone](docs/missing.md)\n"],
    changes: [
      [NEW_FILE, { "project/docs/missing.md": "# Missing\n" }],
      ["a heading renamed in a file linked to", { "project/docs/guide.md": "# Guide\n\n## Install\n" }],
    ],
  },
  {
    name: "gofmt -l",
    needs: ["gofmt"],
    fixture: "go/lint-project",
    tool: "format_check",
    args: { language: "go" },
    edit: ["main.go", "var  spaced  =  1\n"],
    changes: [[NEW_FILE, { "project/added.go": "package main\n\nvar  added  =  2\n" }]],
  },
  {
    name: "cargo fmt --check (whole crate)",
    needs: ["cargo"],
    fixture: "rust/lint-crate",
    tool: "format_check",
    args: { language: "rust" },
    extra: {
      "project/src/lib.rs": "pub mod formatted;\npub mod other;\n\npub fn messy( a:i32 )->i32{ a+1 }\n",
      "project/src/other.rs": "pub fn other() -> i32 {\n    1\n}\n",
      // Formatted until rustfmt.toml asks for tabs.
      "project/src/formatted.rs": "pub fn formatted() -> i32 {\n    1\n}\n",
    },
    edit: ["src/other.rs", "pub fn  spaced( ) {}\n"],
    whole: true,
    changes: [[CONFIG, { "project/rustfmt.toml": "hard_tabs = true\n" }]],
  },
  {
    name: "ty (whole project)",
    needs: ["ty"],
    fixture: "python/typecheck-project",
    tool: "type_check",
    args: { checker: "ty" },
    edit: ["pkg/good.py", "x: int = 'no'\n"],
    changes: [
      [NEW_FILE, { "project/pkg/added.py": "y: str = 1\n" }],
      [
        CONFIG,
        {
          "project/pyproject.toml":
            '[project]\nname = "typecheck-project"\nversion = "0.1.0"\n\n[tool.ty.rules]\ninvalid-assignment = "ignore"\n',
        },
      ],
    ],
  },
  {
    name: "tsc (whole project)",
    needs: [],
    tool: "type_check",
    args: { checker: "tsc" },
    extra: {
      "shared/tsconfig.json": '{ "compilerOptions": { "strict": false, "noEmit": true } }\n',
      "project/tsconfig.json": '{ "extends": "../shared/tsconfig.json", "include": ["src"] }\n',
      "project/package.json": '{ "name": "app", "private": true }\n',
      "project/src/a.ts": "export function f(x) {\n  return x;\n}\n",
    },
    edit: ["src/a.ts", "export const n: number = 'no';\n"],
    changes: [
      [NEW_FILE, { "project/src/added.ts": "export const s: string = 1;\n" }],
      [OUTSIDE, { "shared/tsconfig.json": '{ "compilerOptions": { "strict": true, "noEmit": true } }\n' }],
    ],
  },
  {
    name: "go (whole module)",
    needs: ["go"],
    tool: "type_check",
    args: { checker: "go" },
    extra: {
      "shared/lib/go.mod": "module example.com/lib\n\ngo 1.21\n",
      "shared/lib/lib.go": "package lib\n\nfunc Answer() int { return 42 }\n",
      "project/go.mod":
        "module example.com/app\n\ngo 1.21\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ../shared/lib\n",
      "project/main.go":
        'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/lib"\n)\n\nfunc main() { fmt.Println(lib.Answer()) }\n',
    },
    edit: ["main.go", 'var broken int = "s"\n'],
    changes: [
      [NEW_FILE, { "project/added.go": "package main\n\nvar alsoBroken string = 1\n" }],
      [OUTSIDE, { "shared/lib/lib.go": "package lib\n\nfunc Renamed() int { return 42 }\n" }],
    ],
  },
  {
    name: "cargo check (whole crate)",
    needs: ["cargo"],
    tool: "type_check",
    args: { checker: "cargo" },
    extra: {
      "shared/dep/Cargo.toml": '[package]\nname = "dep"\nversion = "0.1.0"\nedition = "2021"\n',
      "shared/dep/src/lib.rs": "pub fn answer() -> i32 {\n    42\n}\n",
      "project/Cargo.toml":
        '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\ndep = { path = "../shared/dep" }\n',
      "project/src/lib.rs": "pub fn run() -> i32 {\n    dep::answer()\n}\n",
    },
    edit: ["src/lib.rs", "pub fn unused() {\n    let x = 1;\n}\n"],
    changes: [
      [NEW_FILE, { "project/src/bin/tool.rs": 'fn main() {\n    let _x: i32 = "s";\n}\n' }],
      [OUTSIDE, { "shared/dep/src/lib.rs": "pub fn renamed() -> i32 {\n    42\n}\n" }],
    ],
  },
];

const runnable = CASES.filter((c) => !c.needs.some((p) => missing(p, [TOOLS_VENV_BIN])));
const dirs = new Map<Case, string>();
let cached: Connected;
let fresh: Connected;

function writeFiles(dir: string, files: Files): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}

beforeAll(async () => {
  for (const c of runnable) {
    const dir = tempDir("mcq-case-");
    const project = path.join(dir, "project");
    if (c.fixture) fs.cpSync(path.join(FIXTURES, c.fixture), project, { recursive: true });
    else fs.mkdirSync(project);
    writeFiles(dir, c.extra ?? {});
    dirs.set(c, dir);
  }
  const allowed = ["--allowed-paths", [...dirs.values()].join(","), "--rate-limit", "false"];
  const env = { PATH, XDG_CACHE_HOME: tempDir("mcq-xdg-") };
  [cached, fresh] = await Promise.all([
    connectStdio({ args: [...allowed, "--result-cache", "true"], env }),
    connectStdio({ args: [...allowed, "--result-cache", "false"], env }),
  ]);
});

afterAll(async () => {
  await Promise.all([cached?.close(), fresh?.close()]);
});

// The cases are independent (a folder each): they run side by side, within the servers' --max-concurrent.
describe.concurrent.each(runnable)("$name: cached equals fresh", (c) => {
  it("whole from the cache, after a one-file edit, and after each kind of change", async ({ expect }) => {
    const dir = dirs.get(c) as string;
    const args = { ...c.args, path: path.join(dir, "project") };
    const first = await cached.call(c.tool, args);
    expect(first.success, JSON.stringify(first)).toBe(true);
    expect(first.cached).toMatch(/^0 of \d+ files?$/);
    expect(first.uncached).toBeUndefined();
    const total = Number(/of (\d+)/.exec(first.cached as string)?.[1]);
    const hit = await cached.call(c.tool, args);
    expect(hit.cached).toBe(`${total} of ${total} file${total === 1 ? "" : "s"}`);
    const direct = await fresh.call(c.tool, args);
    expect(direct.cached).toBeUndefined();
    expect(comparable(hit)).toBe(comparable(direct));
    expect(comparable(first)).toBe(comparable(direct));

    fs.appendFileSync(path.join(dir, "project", c.edit[0]), c.edit[1]);
    const partial = await cached.call(c.tool, args);
    let before = await fresh.call(c.tool, args);
    expect(comparable(before)).not.toBe(comparable(direct)); // the edit changed the result
    expect(comparable(partial)).toBe(comparable(before));
    // Per-file tools ran the edited file alone; a whole-program tool ran whole.
    const whole = c.whole === true || c.tool === "type_check" || c.args.linter === "flake8";
    expect(partial.cached).toBe(whole ? `0 of ${total} files` : `${total - 1} of ${total} files`);

    for (const [kind, files] of c.changes ?? []) {
      writeFiles(dir, files);
      const afterCached = await cached.call(c.tool, args);
      const after = await fresh.call(c.tool, args);
      expect(comparable(after), `${kind}: the change changed the result`).not.toBe(comparable(before));
      expect(comparable(afterCached), `${kind}: cached equals fresh`).toBe(comparable(after));
      expect(comparable(await cached.call(c.tool, args)), `${kind}: again`).toBe(comparable(after));
      before = after;
    }
    // Each config change restarts a warm worker (tsc, ESLint) on both servers: cold starts, past the default
    // 60 s on a busy machine.
  }, 180_000);
});
