/**
 * SARIF in MCP results (`output: "sarif"`), through the real server: a log cut to fit the result says so
 * (`truncated`, `sarif_truncated` with counts, the trace that holds every result), the trace holds them all and
 * validates; format_check on a JavaScript and TypeScript folder is one prettier run, not two.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { sarifErrors } from "../helpers/sarif.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

interface Log {
  runs: {
    tool: { driver: { name: string } };
    invocations: { commandLine?: string; toolExecutionNotifications?: { message: { text: string } }[] }[];
    results: unknown[];
    automationDetails?: unknown;
  }[];
}

describe("a SARIF log larger than the result", () => {
  const skip = missing("ruff", [TOOLS_VENV_BIN]);
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    if (skip) return;
    dir = tempDir("mcq-sarif-cut-");
    fs.writeFileSync(path.join(dir, "pyproject.toml"), '[tool.ruff.lint]\nselect = ["F401"]\n');
    for (let f = 0; f < 5; f++)
      fs.writeFileSync(
        path.join(dir, `m${f}.py`),
        Array.from({ length: 1000 }, (_, i) => `import os as a${i}\n`).join(""),
      );
    s = await connectStdio({
      // `retain` on lint (read-only) needs --retain-traces per-call (issue 30).
      args: [
        "--allowed-paths",
        dir,
        "--rate-limit",
        "false",
        "--toolsets",
        "core,policy",
        "--retain-traces",
        "per-call",
      ],
      cwd: dir,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin`, VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it.skipIf(skip)("says it was cut, with counts and the trace that holds every result", async () => {
    const r = await s.call("lint", { path: ".", linter: "ruff", output: "sarif", retain: true });
    expect(r.issue_count).toBe(5000);
    expect(r.truncated).toBe(true);
    const log = r.sarif as Log;
    const kept = log.runs[0]!.results.length;
    expect(r.sarif_truncated).toEqual({
      results_total: 5000,
      results_kept: kept,
      runs: [{ tool: "ruff", total: 5000, kept }],
      max_bytes: 1024 * 1024,
      trace_id: r.trace_id,
    });
    expect(kept).toBeGreaterThan(1000);
    expect(kept).toBeLessThan(5000);
    expect(r.notes).toContain(
      `sarif holds ${kept} of 5000 results (the most severe) to fit --max-result-bytes 1048576: trace ${r.trace_id as string} holds them all`,
    );
    // The engine's generic cap had nothing left to cut.
    expect(r.result_capped).toBeUndefined();
    const notes = log.runs[0]!.invocations.flatMap((i) => i.toolExecutionNotifications ?? []);
    expect(notes.at(-1)?.message.text).toBe(
      `${5000 - kept} of 5000 results left out to fit the result in 1048576 bytes (--max-result-bytes), the most severe kept; trace ${r.trace_id as string} holds them all`,
    );
    expect(sarifErrors(log)).toEqual([]);

    const trace = JSON.parse(fs.readFileSync(path.join(dir, r.trace_file as string), "utf8")) as Log;
    expect(trace.runs[0]!.results).toHaveLength(5000);
    expect(sarifErrors(trace)).toEqual([]);
    const summary = await s.call("sarif_risk_summary", { trace_id: r.trace_id });
    expect(summary.result_count).toBe(5000);
  });

  it.skipIf(skip)("without a trace, says how to get one", async () => {
    const r = await s.call("lint", { path: ".", linter: "ruff", output: "sarif" });
    expect(r.trace_id).toBeUndefined();
    expect(r.sarif_truncated).toMatchObject({ results_total: 5000 });
    expect((r.notes as string[]).at(-1)).toMatch(/retain: true keeps them all in a trace$/);
  });
});

describe("one SARIF run per tool", () => {
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir("mcq-sarif-prettier-");
    fs.writeFileSync(
      path.join(dir, "package.json"),
      // Formatted as Prettier formats it: its scope is the project's, package.json included.
      '{\n  "name": "p",\n  "private": true,\n  "type": "module",\n  "prettier": {}\n}\n',
    );
    fs.writeFileSync(path.join(dir, "a.js"), "const a  =  1\nexport default a\n");
    fs.writeFileSync(path.join(dir, "b.ts"), "const b : number =  2\nexport default b\n");
    s = await connectStdio({ args: ["--allowed-paths", dir, "--rate-limit", "false"], cwd: dir });
  });
  afterAll(() => s?.close());

  it("format_check on JavaScript and TypeScript is one prettier run over the project's scope", async () => {
    const r = await s.call("format_check", { path: ".", output: "sarif" });
    expect(r.unformatted_count).toBe(2);
    const log = r.sarif as Log;
    expect(sarifErrors(log)).toEqual([]);
    expect(log.runs.map((x) => x.tool.driver.name)).toEqual(["prettier"]);
    expect(log.runs[0]!.invocations).toHaveLength(1);
    expect(log.runs[0]!.results).toHaveLength(2);
  });
});
