/**
 * audit_dependencies through the real server: pip-audit's absence (it cannot be installed here), and the real
 * npm audit against a registry on 127.0.0.1 that answers with an advisory (or 61, to page through), or
 * refuses connections.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findExecutable } from "../../src/exec/which.js";
import { sarifErrors } from "../helpers/sarif.js";
import { connectStdio, FIXTURES } from "../helpers/server.js";
import { copyFixture, missing, tempDir } from "../helpers/tools.js";

const PATH_WITHOUT_PIP_AUDIT = "/usr/bin:/bin";

describe("audit_dependencies with pip-audit", () => {
  it("says clearly that pip-audit is not installed", async () => {
    expect(findExecutable("pip-audit", [], PATH_WITHOUT_PIP_AUDIT)).toBeUndefined();
    const project = path.join(FIXTURES, "python", "audit-project");
    const s = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { PATH: PATH_WITHOUT_PIP_AUDIT, VIRTUAL_ENV: undefined },
    });
    try {
      const r = await s.call("audit_dependencies", {});
      expect(r).toMatchObject({
        success: false,
        error_type: "tool_not_found",
        command: `pip-audit -r ${path.join(project, "requirements.txt")} --format json`,
      });
      expect(r.error).toMatch(/^pip-audit is not installed .*pip install pip-audit/);
      expect(await s.call("audit_dependencies", { requirements_file: "missing.txt" })).toMatchObject({
        error_type: "path_validation",
      });
      expect(await s.call("audit_dependencies", { requirements_file: "/etc/hosts" })).toMatchObject({
        error_type: "path_validation",
      });
    } finally {
      await s.close();
    }
  });
});

/** `n` more made-up advisories against minimist 1.2.5, to page through. */
function moreAdvisories(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    id: 2_000_000 + i,
    url: `https://github.com/advisories/GHSA-${String(i).padStart(4, "0")}-page-test`,
    title: `Made-up advisory ${i} to page through`,
    severity: i % 2 ? "high" : "moderate",
    vulnerable_versions: "<1.2.6",
  }));
}

/**
 * A registry stand-in on 127.0.0.1: npm's bulk advisory endpoint and the one packument npm asks for;
 * `extra` more advisories for minimist beside its real one.
 */
function startRegistry(extra = 0): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      if (req.url?.startsWith("/-/npm/v1/security/advisories/bulk")) {
        res.end(
          JSON.stringify({
            minimist: [
              {
                id: 1097678,
                url: "https://github.com/advisories/GHSA-xvch-5gv4-984h",
                title: "Prototype Pollution in minimist",
                severity: "critical",
                vulnerable_versions: ">=1.0.0 <1.2.6",
                cwe: ["CWE-1321"],
                cvss: { score: 9.8, vectorString: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" },
              },
              ...moreAdvisories(extra),
            ],
          }),
        );
      } else if (req.url === "/minimist") {
        const port = (server.address() as AddressInfo).port;
        const version = (v: string) => ({
          name: "minimist",
          version: v,
          dist: { tarball: `http://127.0.0.1:${port}/minimist/-/minimist-${v}.tgz` },
        });
        res.end(
          JSON.stringify({
            name: "minimist",
            "dist-tags": { latest: "1.2.8" },
            versions: { "1.2.5": version("1.2.5"), "1.2.6": version("1.2.6"), "1.2.8": version("1.2.8") },
          }),
        );
      } else {
        res.statusCode = 404;
        res.end("{}");
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        requests,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

describe("audit_dependencies with npm audit", () => {
  let registry: Awaited<ReturnType<typeof startRegistry>>;
  beforeAll(async () => {
    registry = await startRegistry();
  });
  afterAll(async () => registry?.close());

  it.skipIf(missing("npm"))("audits a package-lock.json into the same entry shape as pip-audit", async () => {
    const project = copyFixture(path.join(FIXTURES, "js", "npm-audit-project"));
    const s = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { npm_config_registry: registry.url, npm_config_cache: tempDir("mcq-npm-cache-") },
    });
    try {
      const r = await s.call("audit_dependencies", { requirements_file: "." });
      expect(r).toMatchObject({
        success: true,
        passed: false,
        auditor: "npm",
        command: "npm audit --json --package-lock-only",
        returncode: 1,
        vulnerability_count: 1,
      });
      expect(r.vulnerabilities).toEqual([
        {
          package: "minimist",
          version: "1.2.5",
          id: "GHSA-xvch-5gv4-984h",
          fix_versions: ["1.2.8"],
          aliases: [],
          description: "Prototype Pollution in minimist",
          severity: "critical",
          url: "https://github.com/advisories/GHSA-xvch-5gv4-984h",
          vulnerable_versions: ">=1.0.0 <1.2.6",
        },
      ]);
      expect(registry.requests).toContain("POST /-/npm/v1/security/advisories/bulk");
      // The lockfile itself may be named too.
      const byFile = await s.call("audit_dependencies", { requirements_file: "package-lock.json" });
      expect(byFile).toMatchObject({ success: true, auditor: "npm", vulnerability_count: 1 });
      // SARIF: one result per vulnerability, at the lockfile line that pins the package.
      const lock = fs.readFileSync(path.join(project, "package-lock.json"), "utf8").split("\n");
      const pinned = lock.findIndex((l) => l.trim() === '"node_modules/minimist": {') + 1;
      const sarif = await s.call("audit_dependencies", { requirements_file: ".", output: "sarif" });
      expect(sarifErrors(sarif.sarif)).toEqual([]);
      const run = (sarif.sarif as { runs: { tool: { driver: { name: string } }; results: unknown[] }[] })
        .runs[0]!;
      expect(run.tool.driver.name).toBe("npm-audit");
      expect(run.results).toMatchObject([
        {
          ruleId: "GHSA-xvch-5gv4-984h",
          level: "error",
          message: { text: "minimist 1.2.5: Prototype Pollution in minimist; fixed in 1.2.8" },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: "package-lock.json", uriBaseId: "%SRCROOT%" },
                region: { startLine: pinned, startColumn: 5 },
              },
            },
          ],
        },
      ]);
    } finally {
      await s.close();
    }
  });

  it.skipIf(missing("npm"))("an unreachable registry is a clear network failure", async () => {
    const refused = await startRegistry();
    const url = refused.url;
    await refused.close(); // nothing listens on that port any more: connections are refused
    const project = copyFixture(path.join(FIXTURES, "js", "npm-audit-project"));
    const s = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { npm_config_registry: url, npm_config_cache: tempDir("mcq-npm-cache-") },
    });
    try {
      const r = await s.call("audit_dependencies", { requirements_file: "." });
      expect(r).toMatchObject({ success: false, error_type: "tool_error", network_error: true });
      expect(r.error).toBe(
        `Network failure: npm audit could not reach the registry's audit endpoint (${url}). audit_dependencies ` +
          "needs network access to the vulnerability database; nothing was audited.",
      );
      expect(r.output).toMatch(/ECONNREFUSED 127\.0\.0\.1/);
    } finally {
      await s.close();
    }
  });

  it.skipIf(missing("npm"))(
    "pages vulnerabilities; a small max_result_tokens trims, counts full",
    async () => {
      const many = await startRegistry(60);
      const project = copyFixture(path.join(FIXTURES, "js", "npm-audit-project"));
      const s = await connectStdio({
        args: ["--allowed-paths", project],
        cwd: project,
        env: { npm_config_registry: many.url, npm_config_cache: tempDir("mcq-npm-cache-") },
      });
      try {
        const args = { requirements_file: "." };
        const whole = await s.call("audit_dependencies", { ...args, max_result_tokens: 250_000 });
        expect(whole).toMatchObject({
          vulnerability_count: 61,
          summary_text: "npm audit: 61 vulnerabilities in 1 package",
        });
        const all = whole.vulnerabilities as { id: string }[];
        expect(new Set(all.map((v) => v.id)).size).toBe(61);
        const paged: unknown[] = [];
        let offset: number | undefined = 0;
        while (offset !== undefined) {
          const r = await s.call("audit_dependencies", { ...args, offset, limit: 25 });
          paged.push(...(r.vulnerabilities as unknown[]));
          offset = r.next_offset as number | undefined;
          expect(paged.length).toBeLessThanOrEqual(61);
        }
        expect(paged).toEqual(all);
        const small = await s.call("audit_dependencies", { ...args, max_result_tokens: 500 });
        expect(small).toMatchObject({ truncated: true, vulnerability_count: 61, next: { offset: 0 } });
        const listed = small.vulnerabilities as unknown[];
        expect(listed.length).toBeGreaterThan(0);
        expect(listed.length).toBeLessThan(61);
        // Most severe first: critical and high (errors) before moderate (warnings), each from the whole list.
        expect(listed[0]).toMatchObject({ id: "GHSA-xvch-5gv4-984h" });
        for (const v of listed) {
          expect(all).toContainEqual(v);
          expect(["critical", "high"]).toContain((v as { severity: string }).severity);
        }
      } finally {
        await s.close();
        await many.close();
      }
    },
  );
});

describe("audit_dependencies on another ecosystem's manifest", () => {
  // viper's go.mod and ripgrep's Cargo.lock went to pip-audit as requirements files: `go.mod contains
  // invalid specifier at line 3`. Each is refused with what audits it, and nothing runs.
  it("names the tool that audits Go, Rust and Ruby dependencies", async () => {
    const dir = tempDir("mcq-audit-other-");
    fs.writeFileSync(path.join(dir, "go.mod"), "module example.com/m\n\ngo 1.22\n");
    fs.writeFileSync(path.join(dir, "Cargo.lock"), "version = 4\n");
    fs.writeFileSync(path.join(dir, "Gemfile.lock"), "GEM\n  specs:\n");
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      for (const [file, words] of [
        [
          "go.mod",
          /^.*\/go\.mod: Go modules are not audited by audit_dependencies: run `govulncheck \.\/\.\.\.`/,
        ],
        ["Cargo.lock", /Cargo\.lock: Rust crates are not audited by audit_dependencies: run `cargo audit`/],
        ["Gemfile.lock", /Gemfile\.lock: Ruby gems are not audited by audit_dependencies: run `bundle audit/],
      ] as const) {
        const r = await s.call("audit_dependencies", { requirements_file: file });
        expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
        expect(r.error).toMatch(words);
        expect(r.command).toBeUndefined();
      }
      const folder = await s.call("audit_dependencies", { requirements_file: dir });
      expect(folder.error).toMatch(/without package-lock\.json.*\(go\.mod: Go modules are not audited/);
    } finally {
      await s.close();
    }
  });
});
