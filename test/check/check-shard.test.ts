/**
 * `check --shard i/n` splits a project's files between CI jobs deterministically (each finding in exactly
 * one shard, whole-program checks in one shard each), and `check --merge-sarif` joins the shards' logs into
 * one log with the same results as an unsharded check's (schema-valid), with or without the result cache.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseJson, runCheck } from "../helpers/check.js";
import { sarifErrors } from "../helpers/sarif.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

interface Log {
  runs: {
    tool: { driver: { name: string; rules?: { id: string }[] } };
    results: Record<string, unknown>[];
  }[];
}

/** A result as it reads: its rule, file, line and message (indexes and invocations left out). */
function resultsOf(log: Log): string[] {
  return log.runs
    .flatMap((run) =>
      run.results.map((r) => {
        const loc = (r.locations as { physicalLocation: Record<string, unknown> }[] | undefined)?.[0];
        return JSON.stringify([run.tool.driver.name, r.ruleId, r.message, loc?.physicalLocation]);
      }),
    )
    .sort();
}

function project(): string {
  const dir = tempDir("mcq-shard-");
  fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "sharded"\nversion = "0"\n');
  for (let i = 0; i < 12; i++) {
    const sub = path.join(dir, `pkg${i % 3}`);
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `m${i}.py`), `import os\n\n\ndef f${i}(x):\n    return x  +  ${i}\n`);
  }
  fs.writeFileSync(path.join(dir, "README.md"), "# Sharded\n\nSee [the guide](docs/missing.md).\n");
  return dir;
}

describe.skipIf(missing("ruff", [TOOLS_VENV_BIN]) || missing("ty", [TOOLS_VENV_BIN]))("check --shard", () => {
  let dir: string;
  let full: Log;
  const only = ["--only", "ruff,ruff-format,ty,markdown"];
  const sarif = (name: string) => path.join(tempDir("mcq-shard-sarif-"), `${name}.sarif`);

  beforeAll(async () => {
    dir = project();
    const out = sarif("full");
    const run = await runCheck([dir, ...only, "--sarif", out, "--result-cache", "false"], { cwd: dir });
    expect(run.status, run.stderr).toBe(1);
    full = JSON.parse(fs.readFileSync(out, "utf8")) as Log;
    expect(resultsOf(full).length).toBeGreaterThan(24); // 12 F401, 12 format, 1 link
  }, 120_000);

  it.each([
    ["without the result cache", ["--result-cache", "false"]],
    ["with the result cache", ["--result-cache", "true", "--result-cache-dir", tempDir("mcq-shard-cache-")]],
  ])(
    "three shards %s: every result once, merged like the unsharded log",
    async (_name, cacheArgs) => {
      const logs: string[] = [];
      const perShard: string[][] = [];
      for (const i of [1, 2, 3]) {
        const out = sarif(`shard${i}`);
        const run = await runCheck(
          [dir, ...only, "--shard", `${i}/3`, "--json", "--sarif", out, ...cacheArgs],
          {
            cwd: dir,
          },
        );
        expect([0, 1], run.stderr).toContain(run.status);
        const json = parseJson(run);
        // Whole-program checks run in one shard only; the others say where.
        for (const c of json.checks.filter((x) => x.id === "ty" || x.id === "markdown-links"))
          if (c.status === "nothing") expect(c.reason).toMatch(/^runs in shard [123]\/3$/);
        logs.push(out);
        perShard.push(resultsOf(JSON.parse(fs.readFileSync(out, "utf8")) as Log));
      }
      const all = perShard.flat().sort();
      expect(new Set(all).size).toBe(all.length); // no result in two shards
      expect(all).toEqual(resultsOf(full));
      expect(perShard.filter((r) => r.length > 0).length).toBeGreaterThan(1); // the work was split

      const merged = sarif("merged");
      const run = await runCheck(["--merge-sarif", ...logs, "--sarif", merged], { cwd: dir });
      expect(run.status, run.stderr).toBe(0);
      const log = JSON.parse(fs.readFileSync(merged, "utf8")) as Log;
      expect(sarifErrors(log)).toEqual([]);
      expect(resultsOf(log)).toEqual(resultsOf(full));
      expect(log.runs.map((r) => r.tool.driver.name).sort()).toEqual(
        full.runs.map((r) => r.tool.driver.name).sort(),
      );
    },
    240_000,
  );

  it("bad --shard values and --merge-sarif without --sarif are usage errors", async () => {
    for (const args of [
      ["--shard", "4/3"],
      ["--shard", "0/2"],
      ["--shard", "x"],
      ["--merge-sarif", "a.sarif"],
    ]) {
      const run = await runCheck([...args], { cwd: dir });
      expect(run.status, args.join(" ")).toBe(2);
    }
  });
});
