/** Flags and environment: defaults, ranges, and a clear start-up error naming the flag. */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { CLI } from "../helpers/server.js";

describe("loadConfig", () => {
  it("has seed 000's defaults (allowed paths: the working directory)", () => {
    const c = loadConfig([], {}, "/srv/project");
    expect(c).toMatchObject({
      mode: "standalone",
      port: 8000,
      host: "127.0.0.1",
      logLevel: "info",
      timeout: 600,
      allowedPaths: ["/srv/project"],
      auditLogMaxBytes: 10_485_760,
      rateLimit: true,
      maxOutputBytes: 100_000,
      maxConcurrent: 4,
    });
  });

  it("takes seed 000's mode names: server is the HTTP server, client calls one", () => {
    expect(loadConfig(["--mode", "server"], {}, "/w").mode).toBe("standalone");
    const c = loadConfig(["--mode", "client", "--tool", "lint", "--arguments", "{}"], {}, "/w");
    expect(c).toMatchObject({ mode: "client", clientTool: "lint", clientArguments: "{}" });
  });

  it("reads flags over environment variables", () => {
    const c = loadConfig(
      ["--timeout=30", "--allowed-paths", "a,/b"],
      { MCP_CODE_QUALITY_TIMEOUT: "99", MCP_CODE_QUALITY_MAX_CONCURRENT: "8" },
      "/w",
    );
    expect(c.timeout).toBe(30);
    expect(c.maxConcurrent).toBe(8);
    expect(c.allowedPaths).toEqual(["/w/a", "/b"]);
  });

  it.each([
    [["--timeout", "0"], "--timeout: must be in 1-86400, got 0"],
    [["--timeout", "86401"], "--timeout: must be in 1-86400"],
    [["--max-output-bytes", "100"], "--max-output-bytes: must be in 1024-67108864"],
    [["--max-concurrent", "65"], "--max-concurrent: must be in 1-64"],
    [["--audit-log-max-bytes", "4095"], "--audit-log-max-bytes: must be in 4096"],
    [["--rate-limit", "maybe"], "--rate-limit: expected true or false"],
    [["--mode", "daemon"], "--mode: expected one of stdio, standalone, http, server, client"],
    [["--log-level", "loud"], "--log-level: expected one of debug, info, warn, error, silent"],
    [["--port", "abc"], "--port: expected an integer"],
    [["--bogus", "1"], "--bogus: unknown flag"],
    [["--timeout"], "--timeout: needs a value"],
  ])("rejects %j", (argv, message) => {
    expect(() => loadConfig(argv, {}, "/w")).toThrow(ConfigError);
    expect(() => loadConfig(argv, {}, "/w")).toThrow(message);
  });

  it("names the environment variable a bad value came from", () => {
    expect(() => loadConfig([], { MCP_CODE_QUALITY_MAX_CONCURRENT: "0" }, "/w")).toThrow(
      "--max-concurrent (from MCP_CODE_QUALITY_MAX_CONCURRENT): must be in 1-64",
    );
  });
});

describe("the CLI", () => {
  it("stops with exit 2 and the flag's name on a bad value", () => {
    const r = spawnSync(process.execPath, [CLI, "--mode", "stdio", "--max-concurrent", "0"], {
      encoding: "utf8",
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("mcp-code-quality: --max-concurrent: must be in 1-64, got 0\n");
    expect(r.stdout).toBe("");
  });

  it("prints every flag in --help", () => {
    const r = spawnSync(process.execPath, [CLI, "--help"], { encoding: "utf8" });
    for (const flag of [
      "--mode",
      "--port",
      "--host",
      "--log-level",
      "--timeout",
      "--allowed-paths",
      "--audit-log",
      "--audit-log-max-bytes",
      "--rate-limit",
      "--max-output-bytes",
      "--max-concurrent",
      "--auth-token",
    ])
      expect(r.stdout).toContain(flag);
  });

  it("lists its subcommands in --help, and each has a help of its own that exits 0", () => {
    const r = spawnSync(process.execPath, [CLI, "--help"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    for (const sub of [
      "check [PATH...]",
      "hook install claude-code|pre-commit",
      "policy compile",
      "client --tool NAME",
    ])
      expect(r.stdout).toContain(`mcp-code-quality ${sub}`);
    for (const argv of [
      ["hook", "--help"],
      ["policy", "--help"],
      ["hook", "install", "--help"],
    ]) {
      const sub = spawnSync(process.execPath, [CLI, ...argv], { encoding: "utf8" });
      expect(sub.status, sub.stderr).toBe(0);
      expect(sub.stdout).toContain("mcp-code-quality hook install claude-code [--project DIR] [--local]");
      expect(sub.stdout).toContain("mcp-code-quality policy compile");
    }
  });

  it("eslint-typescript-mcp --help prints the drop-in's own help", () => {
    const bin = path.join(path.dirname(CLI), "eslint-typescript-mcp.js");
    const r = spawnSync(process.execPath, [bin, "--help"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: eslint-typescript-mcp \[options\]/);
    expect(r.stdout).toContain("ESLINT_MCP_ALLOW_DIRS");
    expect(r.stdout).not.toContain("mcp-code-quality check [PATH...]");
  });
});
