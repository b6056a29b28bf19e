/**
 * RuboCop through the core tools (issue 16): `lint` and `lint_fix` with inline source under a folder whose
 * .rubocop.yml differs from the root's, contextual corrections held back and applied, and `explain_rules`
 * answering from RuboCop's own cop data. The rubocop toolset's own test covers the seed 003 surface.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";

describe.skipIf(missing("rubocop") || missing("ruby"))(
  "RuboCop through lint, lint_fix and explain_rules",
  () => {
    let project: string;
    let s: Connected;
    beforeAll(async () => {
      project = copyFixture(path.join(FIXTURES, "ruby", "agent"));
      s = await connectStdio({ args: ["--allowed-paths", project, "--rate-limit", "false"], cwd: project });
    });
    afterAll(async () => s?.close());

    const code = "# frozen_string_literal: true\n\nputs 'hi'\n";
    const rules = (r: Record<string, unknown>) =>
      (r.offenses as { rule_id: string }[]).map((o) => o.rule_id).sort();

    it("lint with source_code applies the config of the folder it is linted in, and writes nothing", async () => {
      const atRoot = await s.call("lint", { path: "new.rb", linter: "rubocop", source_code: code });
      expect(atRoot).toMatchObject({ success: true, passed: true, issue_count: 0 });
      const strict = await s.call("lint", { path: "strict/new.rb", linter: "rubocop", source_code: code });
      expect(strict).toMatchObject({ success: true, passed: false, issue_count: 1 });
      expect(rules(strict)).toEqual(["Style/StringLiterals"]);
      // What the rubocop CLI says about the same text at the same place.
      const cli = spawnSync(
        "rubocop",
        ["--format", "json", "--stdin", path.join(project, "strict", "new.rb")],
        {
          cwd: project,
          input: code,
          encoding: "utf8",
        },
      );
      const direct = JSON.parse(cli.stdout) as { files: { offenses: { cop_name: string }[] }[] };
      expect(direct.files[0]!.offenses.map((o) => o.cop_name)).toEqual(rules(strict));
      expect(fs.existsSync(path.join(project, "strict", "new.rb"))).toBe(false);
    });

    it("lint_fix on inline code returns the corrected text; contextual corrections wait for contextual: true", async () => {
      const source = '# frozen_string_literal: true\n\ndef greet(name, unused)\n  "hello " + name\nend\n';
      const held = await s.call("lint_fix", {
        path: "greet.rb",
        linter: "rubocop",
        source_code: source,
        safety: "unsafe",
        contextual: false,
      });
      expect(held, JSON.stringify(held)).toMatchObject({ success: true });
      expect(held.corrected_source).toContain("def greet(name, unused)");
      const applied = await s.call("lint_fix", {
        path: "greet.rb",
        linter: "rubocop",
        source_code: source,
        safety: "unsafe",
        contextual: true,
      });
      expect(applied).toMatchObject({ success: true, corrected: true });
      expect(applied.corrected_source).toMatch(/def greet\(name, _unused\)/);
      expect(fs.existsSync(path.join(project, "greet.rb"))).toBe(false);
    });

    it("explain_rules explains a cop, a department and a typo from RuboCop's data", async () => {
      const r = await s.call("explain_rules", {
        rules: ["Style/StringLiterals", "Lint", "Lint/UselesAssignment"],
        linter: "rubocop",
        path: "strict",
      });
      expect(r).toMatchObject({ success: true });
      const [cop, department, typo] = r.rules as Record<string, unknown>[];
      expect(cop).toMatchObject({ name: "Style/StringLiterals", kind: "rule", autocorrect: "safe" });
      expect(JSON.stringify(cop!.configuration)).toContain("double_quotes");
      expect(department).toMatchObject({ name: "Lint", kind: "category" });
      expect(department!.rules).toContain("Lint/UselessAssignment");
      expect(typo).toMatchObject({ kind: "unknown" });
      expect(typo!.did_you_mean).toContain("Lint/UselessAssignment");
    });
  },
);
