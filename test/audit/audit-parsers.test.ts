/** pip-audit's and npm audit's report parsers, on reports in each tool's documented format. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pinLine, vulnerabilityFindings } from "../../src/adapters/audit-findings.js";
import { looksLikeNetworkFailure } from "../../src/adapters/dependency-audit.js";
import { FIXTURES } from "../helpers/server.js";
import { lockVersions, parseNpmAuditJson } from "../../src/adapters/npm/npm-audit.js";
import { parsePipAuditJson, pipAuditArgs } from "../../src/adapters/python/pip-audit.js";

describe("pip-audit", () => {
  it("builds the seed's argv", () => {
    expect(pipAuditArgs("/p/requirements.txt")).toEqual(["-r", "/p/requirements.txt", "--format", "json"]);
  });

  it("gives one entry per vulnerability and lists skipped dependencies", () => {
    // `pip-audit -r requirements.txt --format json`, in the format pip-audit's README documents.
    const report = JSON.stringify({
      dependencies: [
        {
          name: "flask",
          version: "0.5",
          vulns: [
            {
              id: "PYSEC-2019-179",
              fix_versions: ["1.0"],
              aliases: ["CVE-2019-1010083", "GHSA-5wv5-4vpf-pj6m"],
              description: "The Pallets Project Flask before 1.0 is affected by: unexpected memory usage.",
            },
            {
              id: "PYSEC-2018-66",
              fix_versions: ["0.12.3"],
              aliases: ["CVE-2018-1000656", "GHSA-562c-5r94-xh97"],
              description: "The Pallets Project flask version Before 0.12.3 contains a CWE-20 vulnerability.",
            },
          ],
        },
        { name: "jinja2", version: "3.1.2", vulns: [] },
        {
          name: "my-local-pkg",
          skip_reason: "Dependency not found on PyPI and could not be audited: my-local-pkg (0.1)",
        },
      ],
      fixes: [],
    });
    const parsed = parsePipAuditJson(report);
    expect(parsed?.dependencyCount).toBe(3);
    expect(parsed?.vulnerabilities).toEqual([
      {
        package: "flask",
        version: "0.5",
        id: "PYSEC-2019-179",
        fix_versions: ["1.0"],
        aliases: ["CVE-2019-1010083", "GHSA-5wv5-4vpf-pj6m"],
        description: "The Pallets Project Flask before 1.0 is affected by: unexpected memory usage.",
      },
      {
        package: "flask",
        version: "0.5",
        id: "PYSEC-2018-66",
        fix_versions: ["0.12.3"],
        aliases: ["CVE-2018-1000656", "GHSA-562c-5r94-xh97"],
        description: "The Pallets Project flask version Before 0.12.3 contains a CWE-20 vulnerability.",
      },
    ]);
    expect(parsed?.skipped).toEqual([
      "my-local-pkg: Dependency not found on PyPI and could not be audited: my-local-pkg (0.1)",
    ]);
  });

  it("reads the older top-level list form and refuses non-reports", () => {
    const old = JSON.stringify([
      { name: "requests", version: "2.19.0", vulns: [{ id: "PYSEC-2018-28", fix_versions: ["2.20.0"] }] },
    ]);
    expect(parsePipAuditJson(old)?.vulnerabilities).toEqual([
      {
        package: "requests",
        version: "2.19.0",
        id: "PYSEC-2018-28",
        fix_versions: ["2.20.0"],
        aliases: [],
        description: "",
      },
    ]);
    expect(parsePipAuditJson("Traceback (most recent call last):")).toBeUndefined();
  });

  it("recognizes pip-audit's network failures", () => {
    // What pip-audit prints when PyPI cannot be reached (requests/urllib3 exceptions).
    const offline =
      "ERROR:pip_audit._cli:Failed to upgrade `pip`: ...\nrequests.exceptions.ConnectionError: HTTPSConnectionPool(host='pypi.org', port=443): " +
      "Max retries exceeded with url: /pypi/flask/0.5/json (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f>: " +
      "Failed to establish a new connection: [Errno -3] Temporary failure in name resolution'))";
    expect(looksLikeNetworkFailure(offline)).toBe(true);
    expect(looksLikeNetworkFailure("ERROR: Invalid requirement: 'flask=='")).toBe(false);
  });
});

describe("npm audit", () => {
  const lock = JSON.stringify({
    lockfileVersion: 3,
    packages: {
      "": { name: "x" },
      "node_modules/minimist": { version: "1.2.5" },
      "node_modules/mkdirp": { version: "0.5.5" },
      "node_modules/other/node_modules/minimist": { version: "1.2.0" },
    },
  });

  it("one entry per advisory and installed version; 'via' names of other packages are not advisories", () => {
    const report = JSON.stringify({
      auditReportVersion: 2,
      vulnerabilities: {
        minimist: {
          name: "minimist",
          severity: "critical",
          isDirect: false,
          via: [
            {
              source: 1097678,
              name: "minimist",
              dependency: "minimist",
              title: "Prototype Pollution in minimist",
              url: "https://github.com/advisories/GHSA-xvch-5gv4-984h",
              severity: "critical",
              range: ">=1.0.0 <1.2.6",
            },
          ],
          effects: ["mkdirp"],
          range: "1.0.0 - 1.2.5",
          nodes: ["node_modules/minimist", "node_modules/other/node_modules/minimist"],
          fixAvailable: true,
        },
        mkdirp: {
          name: "mkdirp",
          severity: "critical",
          via: ["minimist"],
          nodes: ["node_modules/mkdirp"],
          fixAvailable: { name: "mkdirp", version: "0.5.6", isSemVerMajor: false },
        },
      },
      metadata: { vulnerabilities: { critical: 2, total: 2 } },
    });
    const parsed = parseNpmAuditJson(report, lockVersions(lock));
    expect(parsed).toEqual({
      kind: "report",
      total: 2,
      vulnerabilities: ["1.2.5", "1.2.0"].map((version) => ({
        package: "minimist",
        version,
        id: "GHSA-xvch-5gv4-984h",
        fix_versions: [],
        aliases: [],
        description: "Prototype Pollution in minimist",
        severity: "critical",
        url: "https://github.com/advisories/GHSA-xvch-5gv4-984h",
        vulnerable_versions: ">=1.0.0 <1.2.6",
      })),
    });
  });

  it("error reports (no lockfile) come back as errors", () => {
    const noLock = JSON.stringify({
      error: {
        code: "ENOLOCK",
        summary: "This command requires an existing lockfile.",
        detail: "Try creating one first",
      },
    });
    expect(parseNpmAuditJson(noLock, lockVersions("{}"))).toEqual({
      kind: "error",
      message: "ENOLOCK: This command requires an existing lockfile.: Try creating one first",
    });
    expect(parseNpmAuditJson("npm ERR! something", lockVersions("{}"))).toBeUndefined();
  });
});

describe("vulnerabilities as findings at the pinning line", () => {
  it("a requirements file: the line naming the package (PEP 503 names)", () => {
    const file = path.join(FIXTURES, "python", "audit-project", "requirements.txt");
    const text = fs.readFileSync(file, "utf8");
    const findings = vulnerabilityFindings(
      "pip-audit",
      [
        {
          package: "Jinja2",
          version: "3.1.2",
          id: "GHSA-h5c8-rqwp-cp95",
          fix_versions: ["3.1.3"],
          aliases: [],
          description: "XSS",
        },
        { package: "absent", version: "1.0", id: "PYSEC-1", fix_versions: [], aliases: [], description: "" },
      ],
      file,
      text,
      false,
    );
    expect(findings.map((f) => [f.rule_id, f.line, f.column, f.severity, f.message])).toEqual([
      ["GHSA-h5c8-rqwp-cp95", 2, 1, "error", "Jinja2 3.1.2: XSS; fixed in 3.1.3"],
      ["PYSEC-1", 0, 0, "error", "absent 1.0: PYSEC-1"],
    ]);
  });

  it("a package-lock.json: the node_modules entry", () => {
    const text =
      '{\n  "packages": {\n    "": {},\n    "node_modules/minimist": {\n      "version": "1.2.5"\n    }\n  }\n}\n';
    expect(pinLine(text.split("\n"), "minimist", true)).toBe(4);
  });
});
