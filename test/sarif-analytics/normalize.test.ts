/**
 * The normalizer's pure functions on the real-shaped foreign samples and on a log where two tools report one
 * issue (ruff's S105 is bandit's B105; typescript-eslint's no-unused-vars is ESLint's): one group key each.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeSarif } from "../../src/sarif-analytics/normalize.js";
import { groupResults } from "../../src/sarif-analytics/risk.js";
import { FIXTURES } from "../helpers/server.js";

const sample = (name: string) => fs.readFileSync(path.join(FIXTURES, "sarif", "foreign", name), "utf8");

function run(tool: string, rule: string, line: number, message: string) {
  return {
    tool: { driver: { name: tool } },
    results: [
      {
        ruleId: rule,
        level: "warning",
        message: { text: message },
        locations: [
          { physicalLocation: { artifactLocation: { uri: "src/app.py" }, region: { startLine: line } } },
        ],
      },
    ],
  };
}

describe("normalizeSarif", () => {
  it("reads every foreign sample: tools, levels, paths, fingerprint sources", () => {
    const rows = ["codeql-python.sarif", "semgrep.sarif", "github-export.sarif"].flatMap((f) =>
      normalizeSarif(sample(f)).results.map((r) => [
        r.tool,
        r.rule_id,
        r.level,
        r.path,
        r.line,
        r.fingerprint_source,
      ]),
    );
    expect(rows).toEqual([
      ["CodeQL", "py/sql-injection", "error", "app/db.py", 14, "partialFingerprints:primaryLocationLineHash"],
      [
        "CodeQL",
        "py/unused-import",
        "note",
        "app/views.py",
        1,
        "partialFingerprints:primaryLocationLineHash",
      ],
      [
        "Semgrep OSS",
        "python.lang.security.audit.subprocess-shell-true.subprocess-shell-true",
        "warning",
        "app/util.py",
        6,
        "fingerprints:matchBasedId/v1",
      ],
      [
        "Semgrep OSS",
        "python.lang.correctness.useless-eqeq.useless-eqeq",
        "note",
        "app/util.py",
        10,
        "fingerprints:matchBasedId/v1",
      ],
      ["CodeQL", "js/xss", "error", "src/render.js", 22, "partialFingerprints:primaryLocationLineHash"],
      [
        "CodeQL",
        "js/unused-local-variable",
        "note",
        "src/render.js",
        5,
        "partialFingerprints:primaryLocationLineHash",
      ],
    ]);
  });

  it("groups one issue reported by two tools at one place, not different rules or lines", () => {
    const log = normalizeSarif({
      version: "2.1.0",
      runs: [
        run("ruff", "S105", 3, "Possible hardcoded password assigned to: `password`"),
        run("bandit", "B105", 3, "Possible hardcoded password: 'hunter2'"),
        run("eslint", "@typescript-eslint/no-unused-vars", 7, "'x' is assigned a value but never used."),
        run("eslint", "no-unused-vars", 7, "'x' is assigned a value but never used."),
        run("ruff", "S105", 4, "Possible hardcoded password assigned to: `token`"),
      ],
    });
    const groups = groupResults(log.results).map((g) =>
      g.members.map((m) => `${m.tool}:${m.rule_id}:${m.line}`),
    );
    expect(groups).toEqual([
      ["ruff:S105:3", "bandit:B105:3"],
      ["ruff:S105:4"],
      ["eslint:@typescript-eslint/no-unused-vars:7", "eslint:no-unused-vars:7"],
    ]);
    expect(log.results.every((r) => r.fingerprint_source === "computed:message")).toBe(true);
  });
});
