/**
 * Wording a QA sweep on tj/commander.js found wrong: a SARIF rule's help said "never used.. See"; explain_rules
 * called typescript-eslint's no-unused-vars `safe` to autocorrect (lint_fix held its finding back as
 * contextual); check dropped the link checker's "did you mean" (check_markdown_links gives it). Pure.
 */
import { describe, expect, it } from "vitest";
import { eslintAutocorrect } from "../../src/adapters/js/eslint-explain.js";
import { failedRunShown } from "../../src/check/report.js";
import type { Finding } from "../../src/findings/model.js";
import { ruleDescriptor } from "../../src/findings/sarif.js";
import { summaryText } from "../../src/findings/summary-text.js";
import { brokenLinkFindings } from "../../src/mcp/tools/check-markdown-links.js";

describe("what the reports say", () => {
  it("a SARIF rule's help has one full stop after a message that ends with one", () => {
    const help = (message: string) =>
      ruleDescriptor("eslint", { id: "no-unused-vars", level: "error", message }, "https://eslint.org").help
        .text;
    expect(help("'x' is assigned a value but never used.")).toBe(
      "eslint reports no-unused-vars: 'x' is assigned a value but never used. See eslint's documentation: https://eslint.org",
    );
    expect(help("Unexpected console statement")).toMatch(
      /^eslint reports no-unused-vars: Unexpected console statement\. See /,
    );
  });

  it("an unused name's fix is contextual, core's and typescript-eslint's alike", () => {
    // typescript-eslint 8.59's rule meta: fixable (unused imports, when asked) and suggestions.
    const tsMeta = { fixable: "code" as const, hasSuggestions: true, schema: [] };
    expect(eslintAutocorrect("@typescript-eslint/no-unused-vars", tsMeta)).toBe("contextual");
    expect(eslintAutocorrect("no-unused-vars", { hasSuggestions: true, schema: [] })).toBe("contextual");
    expect(eslintAutocorrect("no-unused-vars", { schema: [] })).toBe("none");
    expect(eslintAutocorrect("semi", { fixable: "code", schema: [] })).toBe("safe");
  });

  it("a broken link's finding carries the checker's suggestion", () => {
    const [finding] = brokenLinkFindings(
      [
        {
          file: "README.md",
          url: "#usage-exmaple",
          error: "anchor #usage-exmaple not found",
          line: 3,
          column: 1,
          suggestion: "#usage-example",
        },
      ],
      "/repo",
    );
    expect(finding?.message).toBe(
      "#usage-exmaple: anchor #usage-exmaple not found (did you mean #usage-example?)",
    );
  });
});

describe("the summary line's fixable count", () => {
  // As ruff prints it on click with an edit: "[*] 5 fixable with the --fix option (2 hidden fixes can be
  // enabled with the --unsafe-fixes option)"; the line said 7 fixable.
  it("counts what a safe fix corrects, and the unsafe ones apart", () => {
    const finding = (safe: boolean | undefined): Finding => ({
      tool: "ruff",
      file: "/p/a.py",
      line: 1,
      column: 1,
      rule_id: safe === undefined ? "E501" : safe ? "F401" : "B006",
      severity: "error",
      message: "m",
      correctable: safe !== undefined,
      ...(safe !== undefined && { correction: { safe, edits: [] } }),
    });
    const findings = [
      ...Array.from({ length: 5 }, () => finding(true)),
      ...Array.from({ length: 2 }, () => finding(false)),
      ...Array.from({ length: 4 }, () => finding(undefined)),
    ];
    expect(summaryText("ruff", findings)).toBe(
      "ruff: 11 findings in 1 file, 5 fixable, 2 more with unsafe fixes; F401 ×5, E501 ×4, B006 ×2",
    );
  });
});

describe("a failed check's run in the report", () => {
  // rack with a RuboCop plugin missing: the run failed before printing anything, and the report showed its
  // command and an empty line under it.
  it("shows no line of output where there was none", () => {
    const failed = {
      id: "rubocop",
      kind: "lint" as const,
      language: "ruby" as const,
      target: "/p",
      status: "failed" as const,
      duration_ms: 1,
      counts: { error: 0, warning: 0, note: 0 },
      findings: [],
      command: "rubocop --format json .",
    };
    expect(failedRunShown(failed)).toEqual({ head: "rubocop --format json .", lines: [], left: [] });
    expect(failedRunShown({ ...failed, output: "a\nb\n", returncode: 2 }).lines).toEqual(["a", "b"]);
  });
});
