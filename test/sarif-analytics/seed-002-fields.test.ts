/**
 * SARIF as seed 002's coding-ethos server writes it, through the real server: a policy id already in the log
 * maps the result (from the bundle when it has the policy, else from the log), `source_tool`/`code` name the
 * tool and rule behind it, group keys come from `coding_ethos_group_key` and `runs[].properties.finding_groups`,
 * the rerun is an MCP lint_check request, and security is read as GitHub reads it (security-severity, CWE and
 * OWASP tags, CWE taxa, the rule's properties) and from security tools (Contrast Security's WebGoat-style log).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

type Obj = Record<string, unknown>;
const at = (uri: string, line: number) => [
  { physicalLocation: { artifactLocation: { uri }, region: { startLine: line } } },
];

/** A coding-ethos log: rules and results carrying policy_id, skill_id, source_tool and code. */
const ETHOS = {
  version: "2.1.0",
  runs: [
    {
      tool: {
        driver: {
          name: "coding-ethos",
          rules: [
            {
              id: "python.conditional_imports",
              properties: { policy_id: "python.conditional_imports", source_tool: "ruff" },
            },
            {
              id: "python.sql_safety",
              properties: { policy_id: "python.sql_safety", source_tool: "bandit" },
            },
          ],
        },
      },
      properties: {
        finding_groups: [
          {
            id: "group-1",
            key: "python.sql_safety|lint-remediation|src/db.py|8",
            policy_id: "python.sql_safety",
            file: "src/db.py",
            line: 8,
            result_count: 1,
          },
        ],
      },
      results: [
        {
          ruleId: "python.conditional_imports",
          ruleIndex: 0,
          level: "error",
          message: { text: "import should be at the top-level of a file" },
          locations: at("src/app.py", 12),
          partialFingerprints: { "coding-ethos/stable/v1": "abc123" },
          properties: {
            policy_id: "python.conditional_imports",
            skill_id: "conditional-imports",
            source_tool: "ruff",
            code: "PLC0415",
            coding_ethos_group_id: "group-0",
            coding_ethos_group_key: "python.conditional_imports|conditional-imports|src/app.py|12",
          },
        },
        {
          ruleId: "python.sql_safety",
          ruleIndex: 1,
          level: "warning",
          message: { text: "Possible SQL injection vector" },
          locations: at("src/db.py", 8),
          properties: {
            policy_id: "python.sql_safety",
            skill_id: "lint-remediation",
            source_tool: "bandit",
            code: "S608",
          },
        },
        {
          ruleId: "tool.unmapped",
          level: "warning",
          message: { text: "Unmapped linter diagnostic" },
          locations: at("src/app.py", 4),
          properties: { source_tool: "ruff", code: "X999" },
        },
      ],
    },
  ],
};

/** Security as GitHub reads it, one signal per rule, and a rule with none. */
const SECURITY = {
  version: "2.1.0",
  runs: [
    {
      tool: {
        driver: {
          name: "scanner",
          rules: [
            { id: "sev", properties: { "security-severity": "8.1" } },
            { id: "cwe-tag", properties: { tags: ["external/cwe/cwe-089"] } },
            { id: "owasp-tag", properties: { tags: ["owasp-a03"] } },
            { id: "taxon", relationships: [{ target: { id: "79", toolComponent: { name: "CWE" } } }] },
            { id: "plain", properties: { tags: ["maintainability"] } },
          ],
        },
      },
      results: [
        { ruleId: "sev", ruleIndex: 0, message: { text: "a" }, locations: at("a.py", 1) },
        { ruleId: "cwe-tag", ruleIndex: 1, message: { text: "b" }, locations: at("a.py", 2) },
        { ruleId: "owasp-tag", ruleIndex: 2, message: { text: "c" }, locations: at("a.py", 3) },
        { ruleId: "taxon", ruleIndex: 3, message: { text: "d" }, locations: at("a.py", 4) },
        {
          ruleId: "plain",
          ruleIndex: 4,
          message: { text: "e" },
          locations: at("a.py", 5),
          taxa: [{ id: "CWE-22" }],
        },
        { ruleId: "plain", ruleIndex: 4, message: { text: "f" }, locations: at("a.py", 6) },
      ],
    },
  ],
};

/** Contrast Security's shape (WebGoat): no tags or properties, messages from messageStrings. */
const CONTRAST = {
  version: "2.1.0",
  runs: [
    {
      tool: {
        driver: {
          name: "Contrast Security",
          rules: [
            {
              id: "sql-injection",
              defaultConfiguration: { level: "error" },
              messageStrings: { default: { text: "SQL from {0}" } },
            },
            {
              id: "reflected-xss",
              defaultConfiguration: { level: "error" },
              messageStrings: { default: { text: "XSS from {0}" } },
            },
          ],
        },
      },
      results: [
        ...Array.from({ length: 7 }, (_, i) => ({
          ruleId: "sql-injection",
          ruleIndex: 0,
          message: { id: "default", arguments: [`p${i}`] },
          locations: at(`/webgoat/Content/P${i}.aspx`, 1),
        })),
        ...Array.from({ length: 3 }, (_, i) => ({
          ruleId: "reflected-xss",
          ruleIndex: 1,
          message: { id: "default", arguments: [`q${i}`] },
          locations: at(`/webgoat/Content/Q${i}.aspx`, 1),
        })),
      ],
    },
  ],
};

describe("seed 002's SARIF fields", () => {
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir("mcq-seed002-");
    s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false", "--toolsets", "core,policy"],
      cwd: dir,
    });
  });
  afterAll(() => s?.close());

  it("a policy id in the log maps the result; source_tool and code are the tool and rule; the rerun is lint_check", async () => {
    const a = await s.call("sarif_remediation_advice", { sarif: ETHOS, result_index: 0, path: "." });
    expect(a.result).toMatchObject({
      tool: "coding-ethos",
      rule_id: "python.conditional_imports",
      policy_id: "python.conditional_imports",
      skill_id: "conditional-imports",
      source_tool: "ruff",
      source_code: "PLC0415",
      fingerprint: "coding-ethos/stable/v1=abc123",
      group_key: "group:python.conditional_imports|conditional-imports|src/app.py|12",
      group_id: "group-0",
    });
    const advice = a.advice as { mapped: boolean; policy_source: string; policies: { policy_id: string }[] };
    // The shipped bundle has this policy (and maps ruff's PLC0415 to it).
    expect(advice).toMatchObject({ provider: "local", mapped: true, policy_source: "bundle" });
    expect(advice.policies.map((p) => p.policy_id)).toEqual(["python.conditional_imports"]);
    expect(a.rerun).toEqual({
      tool: "lint_check",
      arguments: { path: dir, tool: "ruff", files: ["src/app.py"] },
    });

    // A policy the bundle does not have is taken from the log.
    const b = await s.call("sarif_remediation_advice", { sarif: ETHOS, result_index: 1, path: "." });
    expect(b.advice).toMatchObject({
      mapped: true,
      policy_source: "sarif",
      policies: [{ policy_id: "python.sql_safety", severity: "warn", skill_id: "lint-remediation" }],
      skills: [{ skill_id: "lint-remediation" }],
    });
    expect(b.result).toMatchObject({ security: true, group_id: "group-1" });
    expect(b.rerun).toMatchObject({ tool: "security_scan" });
  });

  it("risk summary: mapped policies, the finding_groups ledger's group id, security from the source tool", async () => {
    const r = await s.call("sarif_risk_summary", { sarif: ETHOS });
    expect(r).toMatchObject({ result_count: 3, open_count: 3, security_count: 1, blocking_count: 1 });
    const policies = r.policies as { mapped_count: number; top_policies: { policy_id: string }[] };
    expect(policies.mapped_count).toBe(2);
    expect(policies.top_policies.map((p) => p.policy_id).sort()).toEqual([
      "python.conditional_imports",
      "python.sql_safety",
    ]);
  });

  it("policy feedback: only the result with no policy is unmapped; the bandit finding reported as a warning is weak", async () => {
    const f = await s.call("sarif_policy_feedback", { sarif: ETHOS });
    expect(f.unmapped).toEqual([{ tool: "coding-ethos", rule_id: "tool.unmapped", count: 1 }]);
    expect((f.weak_security as Obj[]).map((w) => w.rule_id)).toEqual(["python.sql_safety"]);
  });

  it("security_count as GitHub reads it: security-severity, CWE and OWASP tags, CWE taxa; not a plain tag", async () => {
    const r = await s.call("sarif_risk_summary", { sarif: SECURITY });
    expect(r.security_count).toBe(5);
    const a = await s.call("sarif_remediation_advice", { sarif: SECURITY, result_index: 3 });
    expect(a.result).toMatchObject({ rule_id: "taxon", security: true, cwe: ["CWE-79"] });
    const plain = await s.call("sarif_remediation_advice", { sarif: SECURITY, result_index: 5 });
    expect(plain.result).toMatchObject({ security: false });
  });

  it("a security scanner's results are security findings: Contrast Security's 7 SQL injections and 3 XSS", async () => {
    const r = await s.call("sarif_risk_summary", { sarif: CONTRAST });
    expect(r).toMatchObject({ result_count: 10, security_count: 10, counts: { error: 10 } });
  });
});
