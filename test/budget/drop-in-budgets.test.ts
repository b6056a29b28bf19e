/**
 * The drop-in toolsets keep the result budget too, and say what they left out in their originals' own terms:
 * rubocop (seed 003) counts the offenses it does not list in `summary.unreported_offenses` (with `truncated`
 * and a note); eslint-typescript (seed 001) lists fewer messages and says so in `note`, every count kept. Over
 * --max-result-bytes, a fixed-shape result is cut and says so as well. Counts are compared with the tools run
 * directly on the same projects.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const tokens = (v: unknown) => Math.ceil(Buffer.byteLength(JSON.stringify(v)) / 4);
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

describe.skipIf(missing("rubocop") || missing("ruby"))(
  "rubocop toolset under --max-result-bytes 16384",
  () => {
    let project: string;
    let s: Connected;
    beforeAll(async () => {
      project = tempDir("mcq-rubocop-budget-");
      // 12 files of 60 double-quoted assignments: RuboCop's default cops find thousands of offenses, most of
      // them safely correctable (Style/StringLiterals).
      for (let i = 0; i < 12; i++)
        fs.writeFileSync(
          path.join(project, `f${String(i).padStart(2, "0")}.rb`),
          Array.from({ length: 60 }, (_, j) => `value_${j} = "text ${j}"\nputs value_${j}\n`).join(""),
        );
      s = await connectStdio({
        args: ["--allowed-paths", project, "--toolsets", "core,rubocop", "--max-result-bytes", "16384"],
        cwd: project,
      });
    });
    afterAll(async () => s?.close());

    it("rubocop_inspection lists what fits the budget and counts the rest per cop, as the CLI counts them", async () => {
      const r = await s.call("rubocop_inspection", { path: "." });
      const cli = JSON.parse(
        spawnSync("rubocop", ["--format", "json", "."], { cwd: project, encoding: "utf8" }).stdout,
      ) as { summary: { offense_count: number; target_file_count: number } };
      const summary = r.summary as {
        offense_count: number;
        target_file_count: number;
        unreported_offenses: Record<string, number>;
      };
      expect(summary.offense_count).toBe(cli.summary.offense_count);
      expect(summary.target_file_count).toBe(cli.summary.target_file_count);
      const files = r.files as { path: string; offenses: { cop_name: string }[] }[];
      const listed = files.reduce((n, f) => n + f.offenses.length, 0);
      const unreported = Object.values(summary.unreported_offenses).reduce((n, c) => n + c, 0);
      expect(listed).toBeGreaterThan(0);
      expect(listed + unreported).toBe(summary.offense_count);
      // Budget: 16 KiB less the cap's reserve, in tokens (the server's --max-result-tokens is larger).
      expect(tokens(r)).toBeLessThanOrEqual((16384 - 2048) / 4);
      expect(r.truncated).toBe(true);
      expect(r.notes).toEqual([
        expect.stringMatching(
          new RegExp(
            `^${unreported} offense\\(s\\) left out to keep the result within its budget of 3584 tokens \\(--max-result-tokens, at most a quarter of --max-result-bytes\\): summary\\.unreported_offenses counts them per cop`,
          ),
        ),
      ]);
      // Fair: each cop found keeps some listed.
      const cops = new Set(files.flatMap((f) => f.offenses.map((o) => o.cop_name)));
      for (const cop of Object.keys(summary.unreported_offenses)) expect(cops.has(cop), cop).toBe(true);
    });

    it("rubocop_autocorrection's dry run, its diffs over the byte cap, is cut and says so", async () => {
      const r = await s.call("rubocop_autocorrection", { path: ".", safety: true, dry_run: true });
      expect(bytes(r)).toBeLessThanOrEqual(16384);
      expect(r.result_capped).toMatchObject({ max_bytes: 16384 });
      expect((r.result_capped as { original_bytes: number }).original_bytes).toBeGreaterThan(16384);
      expect(r.notes).toContainEqual(
        expect.stringMatching(/was cut to fit --max-result-bytes 16384: see result_capped/),
      );
      expect((r.summary as { corrected_file_count: number }).corrected_file_count).toBe(12);
      // Nothing was written.
      expect(fs.readFileSync(path.join(project, "f00.rb"), "utf8")).toMatch(/^value_0 = "text 0"/);
    });
  },
);

describe("eslint-typescript toolset under the default budget", () => {
  let project: string;
  let s: Connected;
  beforeAll(async () => {
    project = tempDir("mcq-eslint-budget-");
    fs.mkdirSync(path.join(project, "src"));
    fs.writeFileSync(
      path.join(project, "package.json"),
      '{ "name": "b", "private": true, "type": "module" }\n',
    );
    fs.writeFileSync(
      path.join(project, "eslint.config.js"),
      'export default [{ rules: { "prefer-const": "error", "no-var": "warn" } }];\n',
    );
    // 3 files of 300 problems each (200 prefer-const errors, 100 no-var warnings).
    for (let i = 0; i < 3; i++)
      fs.writeFileSync(
        path.join(project, "src", `m${i}.js`),
        Array.from({ length: 200 }, (_, j) => `let a${j} = ${j};\nexport { a${j} };\n`).join("") +
          Array.from({ length: 100 }, (_, j) => `var b${j} = ${j};\nexport { b${j} };\n`).join(""),
      );
    s = await connectStdio({
      args: ["--allowed-paths", project, "--toolsets", "eslint-typescript"],
      cwd: project,
    });
  });
  afterAll(async () => s?.close());

  it("lint lists fewer messages, fairly, within 8,000 tokens; counts as ESLint's own", async () => {
    const r = await s.call("lint", { cwd: project });
    const eslint = JSON.parse(
      spawnSync(path.join(REPO_ROOT, "node_modules", ".bin", "eslint"), ["--format", "json", "src"], {
        cwd: project,
        encoding: "utf8",
      }).stdout,
    ) as { errorCount: number; warningCount: number }[];
    expect(r.summary).toMatchObject({
      totalErrors: eslint.reduce((n, f) => n + f.errorCount, 0),
      totalWarnings: eslint.reduce((n, f) => n + f.warningCount, 0),
    });
    expect(tokens(r)).toBeLessThanOrEqual(8000);
    const files = r.files as { errorCount: number; warningCount: number; messages: { ruleId: string }[] }[];
    expect(files).toHaveLength(3);
    const listed = files.reduce((n, f) => n + f.messages.length, 0);
    expect(listed).toBeGreaterThan(0);
    expect(listed).toBeLessThan(900);
    for (const f of files) {
      expect(f).toMatchObject({ errorCount: 200, warningCount: 100 });
      // Every file and rule keep some; errors come first.
      expect(f.messages.some((m) => m.ruleId === "prefer-const")).toBe(true);
    }
    expect(r.note).toMatch(
      new RegExp(
        `Messages lists ${listed} of 900 messages, to keep the result within 8000 tokens \\(--max-result-tokens; most severe first`,
      ),
    );
  });
});
