/** get_status lists every Python tool (and npm) with its version or why it is unavailable. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findExecutable } from "../../src/exec/which.js";
import { connectStdio, FIXTURES } from "../helpers/server.js";

describe("get_status (python tools)", () => {
  it("probes ty, mypy, pyright, pytest, bandit, pip-audit and npm; lists the new tools with rate limits", async () => {
    const root = path.join(FIXTURES, "python");
    const s = await connectStdio({
      args: ["--allowed-paths", root],
      cwd: root,
      env: { PATH: "/usr/bin:/bin" },
    });
    try {
      const r = await s.call("get_status");
      const tools = r.tools as Record<string, { available: boolean; version?: string; reason?: string }>;
      for (const name of ["ty", "mypy", "pyright", "pytest", "bandit", "pip-audit", "npm"])
        expect(tools).toHaveProperty(name);
      expect(tools.pyright).toMatchObject({ available: true, version: expect.stringMatching(/^1\.1\.\d+$/) });
      expect(tools.ty).toEqual({ available: false, reason: "not found on PATH" });
      expect(tools["pip-audit"]).toEqual({ available: false, reason: "not found on PATH" });
      for (const name of ["mypy", "pytest", "bandit", "npm"])
        if (findExecutable(name, [], "/usr/bin:/bin"))
          expect(tools[name]).toMatchObject({ available: true, version: expect.stringMatching(/^\d+\.\d+/) });
      expect(r.rate_limits).toMatchObject({
        type_check: "30/minute",
        run_tests: "20/minute",
        security_scan: "20/minute",
        audit_dependencies: "10/minute",
      });
      const listed = (await s.client.listTools()).tools.map((t) => t.name);
      expect(listed).toEqual(
        expect.arrayContaining(["type_check", "run_tests", "security_scan", "audit_dependencies"]),
      );
    } finally {
      await s.close();
    }
  });
});
