/**
 * security_scan reports each scanner's result as the scanner means it, through the real server and the real
 * scanners: one scanner's failure (npm audit refusing a lockfile it cannot read, as it refuses a registry that
 * answers 405) is an entry beside the others' findings, never a tool_error that hides them; a clean gosec scan
 * is a pass, and a package gosec could not build is named, as `gosec -fmt json` names it.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_GO_BIN } from "../helpers/tools.js";

const PATH_WITH_GO_TOOLS = `${TOOLS_GO_BIN}:${process.env.PATH ?? ""}`;

describe("security_scan: each scanner's own result", () => {
  let js: string;
  let go: string;
  let s: Connected;
  beforeAll(async () => {
    js = copyFixture(path.join(FIXTURES, "js", "audit-fails"));
    go = copyFixture(path.join(FIXTURES, "go", "gosec-clean"));
    s = await connectStdio({
      args: ["--allowed-paths", [js, go].join(",")],
      cwd: js,
      env: { PATH: PATH_WITH_GO_TOOLS },
    });
  });
  afterAll(async () => s?.close());

  it.skipIf(missing("npm"))(
    "npm audit failing leaves the secrets scanner's finding in the result, with passed: false",
    async () => {
      // npm audit itself refuses this lockfile (ENOLOCK), as it refuses a registry answering 405.
      const direct = spawnSync("npm", ["audit", "--json", "--package-lock-only"], {
        cwd: js,
        encoding: "utf8",
      });
      expect(direct.stdout).toContain('"code": "ENOLOCK"');

      const r = await s.call("security_scan", { path: js });
      expect(r).toMatchObject({ success: true, passed: false, finding_count: 1 });
      expect(r.issues).toEqual([
        "src/config.ts:2:27: mcp-code-quality/secret-assignment/SecretAssignment found a literal credential assigned to a name that says so",
      ]);
      const scanners = r.scanners as Record<string, unknown>[];
      expect(scanners.find((e) => e.name === "secrets")).toMatchObject({ ran: true, finding_count: 1 });
      expect(scanners.find((e) => e.name === "npm-audit")).toMatchObject({
        ran: true,
        error_type: "tool_error",
        command: "npm audit --json --package-lock-only",
        error: expect.stringMatching(
          /^npm audit failed: ENOLOCK: This command requires an existing lockfile/,
        ),
      });
      expect(r.notes).toContainEqual(
        expect.stringMatching(/^npm-audit failed \(tool_error\): npm audit failed/),
      );

      const sarif = await s.call("security_scan", { path: js, output: "sarif" });
      const runs = (
        sarif.sarif as {
          runs: { tool: { driver: { name: string } }; invocations: { executionSuccessful: boolean }[] }[];
        }
      ).runs;
      expect(runs.map((run) => [run.tool.driver.name, run.invocations[0]?.executionSuccessful])).toEqual(
        expect.arrayContaining([
          [expect.stringMatching(/secret/), true],
          ["npm-audit", false],
        ]),
      );
    },
  );

  it.skipIf(missing("go") || missing("gosec", [TOOLS_GO_BIN]))(
    "a clean gosec scan is a pass; a package gosec could not build is named as gosec names it",
    async () => {
      const gosec = path.join(TOOLS_GO_BIN, "gosec");
      const direct = spawnSync(gosec, ["-fmt", "json", "-severity", "low", "-confidence", "low", "./..."], {
        cwd: go,
        encoding: "utf8",
      });
      expect(direct.status).toBe(0);
      expect(JSON.parse(direct.stdout)).toMatchObject({ Issues: [], "Golang errors": {} });

      const clean = await s.call("security_scan", { path: go });
      expect(clean).toMatchObject({ success: true, passed: true, finding_count: 0, returncode: 0 });
      expect((clean.scanners as Record<string, unknown>[]).find((e) => e.name === "gosec")).toMatchObject({
        ran: true,
        command: "gosec -fmt json -severity low -confidence low ./...",
        finding_count: 0,
      });

      // With -quiet gosec printed nothing here either (exit 0): the scan looked clean though it skipped code.
      fs.mkdirSync(path.join(go, "broken"));
      fs.writeFileSync(
        path.join(go, "broken", "broken.go"),
        'package broken\n\nfunc F() int { return "x" }\n',
      );
      const broken = await s.call("security_scan", { path: go });
      const gosecErrors = JSON.parse(
        spawnSync(gosec, ["-fmt", "json", "-severity", "low", "-confidence", "low", "./..."], {
          cwd: go,
          encoding: "utf8",
        }).stdout,
      )["Golang errors"] as Record<string, unknown>;
      const unscanned = Object.keys(gosecErrors).filter((f) => f !== "");
      expect(unscanned).toEqual([path.join(go, "broken", "broken.go")]);
      expect(broken).toMatchObject({
        success: true,
        passed: true,
        unscanned_files: unscanned,
        returncode: 1,
      });
      expect(broken.summary).toMatchObject({ errors: 1 });
      expect(broken.notes).toContainEqual(
        expect.stringMatching(/^gosec could not scan .*broken\.go: cannot use "x"/),
      );
    },
  );
});
