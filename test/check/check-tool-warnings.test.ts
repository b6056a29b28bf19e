/**
 * What the tools warn of beside their results reaches `check`: on httpx, ruff 0.12 prints `warning: Invalid
 * # noqa directive on httpx/_transports/asgi.py:171` on every run, and `check` said "passed" and nothing
 * else (the result's notes had it; the report dropped every note). The report now lists the warnings under
 * "Tool warnings:", --json carries every note of each check; and since the per-file cache re-runs only the
 * edited files, a warning about one file is kept with that file: shown while the file is as it was, gone
 * once the file no longer earns it, never lost when another file is edited. The real ruff, with its cache on.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { splitFileNotes } from "../../src/cache/file-notes.js";
import { warningNotes, warningShown } from "../../src/check/tool-warnings.js";
import { PATH_WITH_TOOLS, runCheck, type CheckJson } from "../helpers/check.js";
import { tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

/** As ruff 0.12-0.17 prints it (captured on httpx), after parseToolWarnings. */
const NOQA_WARNING =
  "ruff: warning: Invalid `# noqa` directive on httpx/_transports/asgi.py:171: expected a comma-separated list of codes (e.g., `# noqa: F401, F841`).";

describe("the notes that warn", () => {
  it("are the tools' own warnings and the server's `warning:` notes; the rest is what ran and how", () => {
    const notes = [
      "ruff from the project's virtualenv /work/qa/httpx/venv",
      NOQA_WARNING,
      "black: DeprecationWarning: invalid escape sequence",
      "warning: black 23.1.0 runs here; the project's pre-commit pins black 26.5.1, whose verdict can differ",
      "mypy daemon (dmypy 1.17.1) started, pid 8364; this first check was cold",
      "warnings filtered by the project's config",
      NOQA_WARNING,
    ];
    expect(warningNotes(notes)).toEqual([notes[1], notes[2], notes[3]]);
    expect(warningShown(NOQA_WARNING)).toBe(NOQA_WARNING.slice("ruff: ".length));
    expect(warningShown(notes[3] as string)).toBe(notes[3]);
  });

  it("are kept with the file they name at a line, when it is below the root", () => {
    const root = "/work/qa/httpx";
    const global = "ruff: warning: The top-level linter settings are deprecated in favour of `lint`.";
    const outside = "ruff: warning: something on /elsewhere/x.py:3: odd";
    const { rest, byFile } = splitFileNotes([global, NOQA_WARNING, outside], root, root);
    expect(rest).toEqual([global, outside]);
    expect([...byFile]).toEqual([[`${root}/httpx/_transports/asgi.py`, [NOQA_WARNING]]]);
    // A relative name is resolved from where the tool ran.
    expect([...splitFileNotes([NOQA_WARNING], "/elsewhere", root).byFile.keys()]).toEqual([]);
    expect([
      ...splitFileNotes(
        ["ruff: warning: Invalid `# noqa` directive on httpx/a.py:1: x"],
        "/work/qa",
        "/work/qa",
      ).byFile.keys(),
    ]).toEqual(["/work/qa/httpx/a.py"]);
  });
});

const RUFF = path.join(TOOLS_VENV_BIN, "ruff");

describe.skipIf(!fs.existsSync(RUFF))("check with the real ruff and its result cache", () => {
  const dir = tempDir("mcq-tool-warnings-");
  const cache = tempDir("mcq-tool-warnings-cache-");
  fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "p"\nversion = "0"\n');
  fs.writeFileSync(path.join(dir, "ruff.toml"), '[lint]\nselect = ["F"]\n[format]\nquote-style = "double"\n');
  const bad = "import os  # noqa: F-401\n\nprint(os)\n";
  fs.writeFileSync(path.join(dir, "a.py"), bad);
  fs.writeFileSync(path.join(dir, "b.py"), "x = 1\n");
  const env = { XDG_CACHE_HOME: cache, MCP_CODE_QUALITY_RESULT_CACHE: "true" };
  const byHand = () =>
    spawnSync(RUFF, ["check", "--no-cache", "."], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, PATH: PATH_WITH_TOOLS },
    }).stderr;
  const check = async (...args: string[]) => {
    const run = await runCheck(["--only", "ruff", ...args], { cwd: dir, env });
    expect(run.stderr).toBe("");
    return run;
  };
  const ruffNotes = async () => {
    const json = JSON.parse((await check("--json")).stdout) as CheckJson;
    return json.checks.find((c) => c.id === "ruff")?.notes ?? [];
  };

  it("shows ruff's warning as ruff by hand prints it, cold and from the cache", async () => {
    const warning = /^warning: (Invalid `# noqa` directive on a\.py:1: .*)$/m.exec(byHand())?.[1];
    expect(warning).toBeTruthy();
    for (let run = 0; run < 2; run++) {
      const report = (await check()).stdout;
      expect(report).toContain(`\nTool warnings:\n  ruff: warning: ${warning}\n`);
      expect(await ruffNotes()).toContain(`ruff: warning: ${warning}`);
    }
  }, 120_000);

  it("lists it in --github's job summary", async () => {
    const runner = tempDir("mcq-tool-warnings-gh-");
    const summary = path.join(runner, "summary.md");
    fs.writeFileSync(summary, "");
    await runCheck(["--only", "ruff", "--github"], {
      cwd: dir,
      env: {
        ...env,
        GITHUB_ACTIONS: "true",
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_OUTPUT: path.join(runner, "output"),
        GITHUB_WORKSPACE: dir,
      },
    });
    expect(fs.readFileSync(summary, "utf8")).toMatch(
      /\n### Tool warnings\n\n- \*\*ruff\*\*: warning: Invalid `# noqa` directive on a\.py:1: /,
    );
  }, 120_000);

  it("keeps it when another file is edited, and drops it once its file no longer earns it", async () => {
    fs.appendFileSync(path.join(dir, "b.py"), "y = 2\n");
    expect((await check()).stdout).toContain(
      "Tool warnings:\n  ruff: warning: Invalid `# noqa` directive on a.py:1",
    );
    fs.writeFileSync(path.join(dir, "a.py"), bad.replace("F-401", "F401"));
    expect(byHand()).not.toContain("warning");
    const fixed = (await check()).stdout;
    expect(fixed).not.toContain("Tool warnings:");
    expect(fixed).toContain("✓ no findings");
    expect((await ruffNotes()).join("\n")).not.toContain("Invalid");
    // And back: the file's old text earns it again.
    fs.writeFileSync(path.join(dir, "a.py"), bad);
    expect((await check()).stdout).toContain(
      "Tool warnings:\n  ruff: warning: Invalid `# noqa` directive on a.py:1",
    );
  }, 120_000);
});
