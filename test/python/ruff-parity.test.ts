/**
 * ruff's rule names and docs with the CLI and with the embedded build alone (issue 27): only/except refuse
 * names ruff does not know (a rule's name suggests its code), and explain_rules works without the ruff CLI
 * from the documentation shipped for the embedded ruff, as `ruff rule` gives it.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";

const PROJECT = path.join(FIXTURES, "python", "fix-project");
const RUFF = path.join(TOOLS_VENV_BIN, "ruff");

describe("ruff rule names and docs", () => {
  let dir: string;
  let cli: Connected;
  let embedded: Connected;
  beforeAll(async () => {
    dir = copyFixture(PROJECT);
    cli = await connectStdio({
      args: ["--allowed-paths", dir],
      cwd: dir,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin` },
    });
    // No ruff CLI anywhere on PATH: the embedded build alone.
    embedded = await connectStdio({
      args: ["--allowed-paths", dir],
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
    });
  });
  afterAll(async () => {
    await cli?.close();
    await embedded?.close();
  });

  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
    "an unknown code or a rule's name in only is invalid_input",
    async () => {
      const r = await cli.call("lint", { path: ".", only: ["ZZZ999", "unused-import"] });
      expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
      expect(r.error).toBe(
        'only: ruff has no rule or group "ZZZ999"; only: ruff has no rule or group "unused-import"; did you mean F401?',
      );
      const fix = await cli.call("lint_fix", { path: ".", except: ["E7111"], dry_run: true });
      expect(fix.error).toBe('except: ruff has no rule or group "E7111"; did you mean E111, E711?');
      // Prefixes and categories are names ruff knows.
      expect(await cli.call("lint", { path: ".", only: ["E7", "F"] })).toMatchObject({ success: true });
    },
  );

  it("the embedded ruff alone checks names against its shipped rule list too", async () => {
    const r = await embedded.call("lint", { path: ".", only: ["F4011"] });
    expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(r.error).toBe('only: ruff has no rule or group "F4011"; did you mean F401?');
  });

  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
    "explain_rules with the embedded ruff alone: what `ruff rule` says of the rule",
    async () => {
      const direct = JSON.parse(
        spawnSync(RUFF, ["rule", "E711", "--output-format", "json"], { encoding: "utf8" }).stdout,
      ) as { name: string; linter: string; summary: string; explanation: string };
      const r = await embedded.call("explain_rules", { path: ".", rules: ["E711", "unused-imprt"] });
      expect(r.success, JSON.stringify(r)).toBe(true);
      const [rule, typo] = r.rules as Record<string, unknown>[];
      expect(rule).toMatchObject({
        name: "E711",
        kind: "rule",
        summary: `${direct.name} (${direct.linter}): ${direct.summary}`,
        description: direct.explanation.split(/\n## Example/)[0]!.trim(),
        bad_example: "if arg != None:\n    pass\nif None == arg:\n    pass\n",
        good_example: "if arg is not None:\n    pass\n",
        autocorrect: "unsafe",
        docs_url: "https://docs.astral.sh/ruff/rules/none-comparison/",
      });
      expect(rule).not.toHaveProperty("configuration");
      expect(typo).toMatchObject({ kind: "unknown", did_you_mean: ["unused-import"] });
      expect(r.notes).toEqual([
        "no ruff CLI: rule documentation shipped with the server for the embedded ruff 0.17.4 (the embedded build " +
          "cannot show how settings resolve for a file: configuration left out)",
      ]);
    },
  );
});
