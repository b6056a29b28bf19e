/**
 * Scripts without an extension, known by their `#!` line (tj/commander.js: `examples/pizza`, `#!/usr/bin/env
 * node`): `check --files examples/pizza` said there was nothing to check, and lint / format_check of such a file
 * checked nothing (RuboCop's `files` refused it: "matched no file"), while each tool run by hand on it checks
 * it: ruff, ruff format, Prettier (by its interpreters), ESLint (where its config's `files` names it), RuboCop.
 * The real tools on fixture scripts, by hand and through check and MCP.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { interpreterLanguage, scriptLanguage } from "../../src/adapters/script-files.js";
import { parseJson, PATH_WITH_TOOLS, runCheck } from "../helpers/check.js";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const write = (file: string, text: string, mode = 0o644) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, { mode });
};

const env = { PATH: PATH_WITH_TOOLS };

/** A run by hand in `dir`: its exit status and output. */
const byHand = (dir: string, argv: string[]) => {
  const [program, ...args] = argv as [string, ...string[]];
  const r = spawnSync(program, args, {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, PATH: PATH_WITH_TOOLS, NO_COLOR: "1", FORCE_COLOR: undefined },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
};

/** What check --files reported for these files: its findings as `file rule`, sorted. */
async function checkFiles(dir: string, files: string[], only?: string) {
  const run = await runCheck(["--json", ...(only ? ["--only", only] : []), "--files", ...files], {
    cwd: dir,
    env,
  });
  const json = parseJson(run);
  return {
    findings: json.findings.map((f) => `${f.file} ${f.rule_id}`).sort(),
    ran: json.checks.filter((c) => c.status !== "skipped" && c.finding_count > 0).map((c) => c.id),
  };
}

describe("the language of a script by its #! line", () => {
  it("maps interpreters as Prettier and RuboCop do", () => {
    expect(interpreterLanguage("node")).toBe("javascript");
    expect(interpreterLanguage("deno")).toBe("typescript");
    expect(interpreterLanguage("python3")).toBe("python");
    expect(interpreterLanguage("python3.12")).toBe("python");
    expect(interpreterLanguage("ruby3.3")).toBe("ruby");
    expect(interpreterLanguage("jruby")).toBe("ruby");
    // Prettier takes its own interpreter names only.
    expect(interpreterLanguage("node18")).toBeUndefined();
    expect(interpreterLanguage("sh")).toBeUndefined();
  });

  it("reads the first line of a regular file only: no link on the way, no FIFO, no name with a dot", () => {
    const dir = tempDir("mcq-script-language-");
    write(path.join(dir, "tool"), "#!/usr/bin/env node\nconsole.log(1);\n");
    write(path.join(dir, "tool.v2"), "#!/usr/bin/env node\n");
    write(path.join(dir, "run"), "#!/bin/sh\necho hi\n");
    fs.symlinkSync(path.join(dir, "tool"), path.join(dir, "link"));
    // A folder named through a link (it could lead outside the allowed paths).
    const outside = tempDir("mcq-script-outside-");
    write(path.join(outside, "tool"), "#!/usr/bin/env node\n");
    fs.symlinkSync(outside, path.join(dir, "linked"));
    fs.mkdirSync(path.join(dir, "folder"));
    expect(spawnSync("mkfifo", [path.join(dir, "pipe")]).status).toBe(0);
    expect(scriptLanguage(path.join(dir, "tool"))).toBe("javascript");
    expect(scriptLanguage(path.join(dir, "tool.v2"))).toBeUndefined();
    expect(scriptLanguage(path.join(dir, "run"))).toBeUndefined();
    expect(scriptLanguage(path.join(dir, "link"))).toBeUndefined();
    expect(scriptLanguage(path.join(dir, "linked", "tool"))).toBeUndefined();
    expect(scriptLanguage(path.join(outside, "tool"))).toBe("javascript");
    expect(scriptLanguage(path.join(dir, "folder"))).toBeUndefined();
    // Returns at once (a FIFO opened for reading without O_NONBLOCK would wait for a writer).
    expect(scriptLanguage(path.join(dir, "pipe"))).toBeUndefined();
  });
});

describe.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("a Python script named", () => {
  const dir = tempDir("mcq-python-script-");
  write(
    path.join(dir, "pyproject.toml"),
    '[project]\nname = "p"\nversion = "0"\n\n[tool.ruff.lint]\nselect = ["F"]\n',
  );
  write(path.join(dir, "mod.py"), "import os\n\nprint(os.sep)\n");
  write(path.join(dir, "bin", "tool"), "#!/usr/bin/env python3\nimport os\nimport sys\nx=1\n", 0o755);
  write(path.join(dir, "bin", "run"), "#!/bin/sh\necho   hi\n", 0o755);
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir, env });
  });
  afterAll(() => s?.close());

  /** `ruff check` by hand: `file rule` of each finding, sorted. */
  const ruffByHand = (...files: string[]) => {
    const r = byHand(dir, ["ruff", "check", "--no-cache", "--output-format", "json", ...files]);
    return (JSON.parse(r.out) as { filename: string; code: string }[])
      .map((f) => `${path.relative(dir, f.filename)} ${f.code}`)
      .sort();
  };

  it("is linted and format-checked as ruff does by hand", async () => {
    // ruff's own walk skips it; named, ruff lints and formats it.
    expect(ruffByHand()).toEqual([]);
    const hand = ruffByHand("bin/tool");
    expect(hand).toEqual(["bin/tool F401", "bin/tool F401"]);
    expect(byHand(dir, ["ruff", "format", "--no-cache", "--check", "bin/tool"]).status).toBe(1);

    const lint = await s.call("lint", { path: "bin/tool" });
    expect(lint).toMatchObject({ success: true, passed: false, issue_count: hand.length });
    const format = await s.call("format_check", { path: "bin/tool" });
    expect(format).toMatchObject({ success: true, formatted: false, unformatted_files: ["bin/tool"] });
    // A shell script is no Python one.
    expect(await s.call("lint", { path: "bin/run" })).toMatchObject({ nothing_checked: true });
  }, 60_000);

  it("is checked by check --files, at itself", async () => {
    const hand = ruffByHand("bin/tool", "mod.py");
    const { findings } = await checkFiles(dir, ["bin/tool", "mod.py", "bin/run"], "ruff");
    expect(findings).toEqual([...hand, "bin/tool format"].sort());
  }, 60_000);

  it("is fixed by check --fix --files as ruff fixes it by hand", async () => {
    const copy = () => {
      const to = tempDir("mcq-python-script-fix-");
      fs.cpSync(dir, to, { recursive: true });
      return to;
    };
    const hand = copy();
    byHand(hand, ["ruff", "check", "--no-cache", "--fix", "bin/tool"]);
    byHand(hand, ["ruff", "format", "--no-cache", "bin/tool"]);
    const ours = copy();
    const run = await runCheck(["--json", "--fix", "--files", "bin/tool"], { cwd: ours, env });
    const fixes = parseJson(run).fixes ?? [];
    expect(fixes.map((f) => [f.id, f.tool, f.success])).toEqual([
      ["ruff", "lint_fix", true],
      ["ruff-format", "autoformat", true],
    ]);
    const read = (d: string) => fs.readFileSync(path.join(d, "bin", "tool"), "utf8");
    expect(read(hand)).toBe("#!/usr/bin/env python3\nx = 1\n");
    expect(read(ours)).toBe(read(hand));
  }, 60_000);
});

describe.skipIf(missing("rubocop"))("a Ruby script named", () => {
  const dir = tempDir("mcq-ruby-script-");
  write(path.join(dir, ".rubocop.yml"), "AllCops:\n  NewCops: enable\n  SuggestExtensions: false\n");
  write(path.join(dir, "lib", "a.rb"), "# frozen_string_literal: true\n\nputs 1\n");
  write(
    path.join(dir, "bin", "tool"),
    "#!/usr/bin/env ruby\n# frozen_string_literal: true\n\nx = 1 \nputs x\n",
    0o755,
  );
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
  });
  afterAll(() => s?.close());

  /** `rubocop` by hand: `file cop` of each offense, sorted. */
  const rubocopByHand = (...files: string[]) => {
    const r = byHand(dir, ["rubocop", "--cache", "false", "--format", "json", ...files]);
    const json = JSON.parse(r.out) as { files: { path: string; offenses: { cop_name: string }[] }[] };
    return json.files.flatMap((f) => f.offenses.map((o) => `${f.path} ${o.cop_name}`)).sort();
  };

  it("is linted through lint's path and files, and by check --files, as rubocop does", async () => {
    const hand = rubocopByHand("bin/tool");
    expect(hand).toEqual(["bin/tool Layout/TrailingWhitespace"]);
    // RuboCop's own walk takes it too.
    expect(rubocopByHand()).toEqual(hand);
    const byFiles = await s.call("lint", { path: ".", linter: "rubocop", files: ["bin/tool"] });
    expect(byFiles).toMatchObject({ success: true, issue_count: hand.length });
    const byPath = await s.call("lint", { path: "bin/tool" });
    expect(byPath).toMatchObject({ success: true, issue_count: hand.length });
    expect((await checkFiles(dir, ["bin/tool"])).findings).toEqual(hand);
  }, 60_000);
});

describe("a node script named", () => {
  const dir = tempDir("mcq-node-script-");
  write(path.join(dir, "package.json"), '{ "name": "p", "type": "module" }\n');
  write(path.join(dir, ".prettierrc.json"), "{}\n");
  // ESLint lints a file without a known extension where its config's `files` names it.
  write(
    path.join(dir, "eslint.config.js"),
    'export default [{ files: ["**/*.js", "bin/tool"], rules: { semi: "error" } }];\n',
  );
  write(path.join(dir, "index.js"), "export const a = 1;\n");
  write(path.join(dir, "bin", "tool"), "#!/usr/bin/env node\nconst  a =  1\nconsole.log(a)\n", 0o755);
  write(path.join(dir, "bin", "other"), "#!/usr/bin/env node\nconsole.log(1)\n", 0o755);
  const prettier = path.join(REPO_ROOT, "node_modules", "prettier", "bin", "prettier.cjs");
  const eslint = path.join(REPO_ROOT, "node_modules", "eslint", "bin", "eslint.js");
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
  });
  afterAll(() => s?.close());

  /** ESLint by hand: `file rule` of each message, sorted (ESLint's own "File ignored" has none). */
  const eslintByHand = (...files: string[]) => {
    const r = byHand(dir, [process.execPath, eslint, "--format", "json", ...files]);
    const json = JSON.parse(r.out) as { filePath: string; messages: { ruleId: string | null }[] }[];
    return json
      .flatMap((f) => f.messages.map((m) => `${path.relative(dir, f.filePath)} ${m.ruleId ?? "(ignored)"}`))
      .sort();
  };

  it("is format-checked and linted as Prettier and ESLint do by hand", async () => {
    const hand = byHand(dir, [process.execPath, prettier, "--check", "bin/tool", "bin/other"]);
    const warned = [...hand.out.matchAll(/^\[warn\] (\S+)$/gm)].map((m) => m[1]);
    expect(warned).toEqual(["bin/tool", "bin/other"]);
    expect(eslintByHand("bin/tool")).toEqual(["bin/tool semi", "bin/tool semi"]);
    // No `files` pattern of the config names it: ESLint lints nothing there.
    expect(eslintByHand("bin/other")).toEqual(["bin/other (ignored)"]);

    const format = await s.call("format_check", { path: "bin/tool" });
    expect(format).toMatchObject({ success: true, formatted: false, unformatted_files: ["bin/tool"] });
    const lint = await s.call("lint", { path: "bin/tool" });
    expect(lint).toMatchObject({ success: true, passed: false, issue_count: 2 });
    // tsc resolves no file without one of its extensions (TS6231): nothing to type-check.
    expect(await s.call("type_check", { path: "bin/tool", checker: "tsc" })).toMatchObject({
      nothing_checked: true,
    });
  }, 60_000);

  it("is checked by check --files through the project's Prettier and ESLint runs", async () => {
    const { findings } = await checkFiles(dir, ["bin/tool", "bin/other"]);
    expect(findings).toEqual(["bin/other format", "bin/tool format", "bin/tool semi", "bin/tool semi"]);
  }, 60_000);
});
