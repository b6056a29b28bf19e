/** MCP protocol behaviour over stdio: listing, schemas, annotations and InvalidParams errors. */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

let s: Connected;
let dir: string;
beforeAll(async () => {
  dir = tempDir("mcq-proto-");
  fs.writeFileSync(path.join(dir, "a.py"), "import os\n");
  s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir, env: { PATH: "/usr/bin:/bin" } });
});
afterAll(() => s.close());

async function invalidParams(name: string, args: Record<string, unknown>): Promise<string> {
  try {
    await s.client.callTool({ name, arguments: args });
  } catch (e) {
    expect(e).toBeInstanceOf(McpError);
    expect((e as McpError).code).toBe(ErrorCode.InvalidParams);
    return (e as McpError).message;
  }
  throw new Error("expected an InvalidParams error");
}

describe("tools/list", () => {
  it("lists every core tool with a description, an input schema and annotations", async () => {
    const { tools } = await s.client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ["format_check", "autoformat", "lint", "get_status", "get_audit_log"]) {
      const t = byName[name]!;
      expect(t.description!.length).toBeGreaterThan(30);
      expect(t.inputSchema.type).toBe("object");
      // Not advertised (tools/list budget): unknown arguments are refused all the same (see below).
      expect(t.inputSchema.additionalProperties).toBeUndefined();
      expect(typeof t.annotations!.readOnlyHint).toBe("boolean");
      // MCP: the destructive and idempotent hints are meaningful only when readOnlyHint is false.
      if (t.annotations!.readOnlyHint === false)
        expect(typeof t.annotations!.destructiveHint).toBe("boolean");
      else expect(t.annotations!.destructiveHint).toBeUndefined();
    }
    expect(byName.lint!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(byName.autoformat!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    // No titles (clients show the name): the tokens went to describing every argument instead.
    expect(byName.lint!.title).toBeUndefined();
    expect(byName.autoformat!.title).toBeUndefined();
    expect(byName.lint!.inputSchema.required).toEqual(["path"]);
    const linter = (
      byName.lint!.inputSchema.properties as Record<
        string,
        { enum: string[]; default: string; description: string }
      >
    ).linter!;
    expect(linter.enum).toEqual([
      "ruff",
      "flake8",
      "eslint",
      "govet",
      "staticcheck",
      "golint",
      "golangci-lint",
      "clippy",
      "rubocop",
    ]);
    // No fixed default: the project's languages choose (ruff for Python, eslint for JavaScript/TypeScript).
    expect(linter.default).toBeUndefined();
    expect(linter.description).toBeTruthy();
  });
});

describe("invalid arguments are InvalidParams errors", () => {
  it("an unknown enum value lists the valid ones", async () => {
    const msg = await invalidParams("lint", { path: "a.py", linter: "pylint" });
    expect(msg).toContain("linter");
    expect(msg).toContain('"ruff"');
    expect(msg).toContain('"flake8"');
    expect(msg).toContain('"eslint"');
    expect(msg).not.toMatch(/MCP error -32602: MCP error/);
  });

  it("a wrong type", async () => {
    expect(await invalidParams("lint", { path: 5 })).toMatch(/path: .*expected string/i);
  });

  it("a missing required argument", async () => {
    expect(await invalidParams("format_check", {})).toMatch(/path/);
  });

  it("a negative number", async () => {
    expect(await invalidParams("get_audit_log", { limit: -5 })).toMatch(/limit/);
  });

  it("an unknown extra argument", async () => {
    expect(await invalidParams("lint", { path: "a.py", paths: ["x"] })).toMatch(
      /unknown argument\(s\) paths/,
    );
  });

  it("an unknown tool", async () => {
    expect(await invalidParams("no_such_tool", {})).toMatch(/Unknown tool/);
  });
});

describe("null means not provided", () => {
  it("uses the defaults for null arguments", async () => {
    const r = await s.call("lint", { path: "a.py", linter: null, config: null });
    expect(r.success).toBe(true);
    expect(r.issues).toEqual(["a.py:1:8: F401 `os` imported but unused"]);
  });
});

describe("results", () => {
  it("carry seed 000's fields and omit empty ones", async () => {
    const r = await s.call("lint", { path: "a.py" });
    expect(Object.keys(r).sort()).toEqual([
      "command",
      "duration_ms",
      "issue_count",
      "issues",
      "notes",
      // Seed 003's summary (issue 16); offenses are listed with format full or seed 003's arguments.
      "passed",
      "returncode",
      "success",
      "summary",
      "summary_text",
    ]);
    expect(typeof r.duration_ms).toBe("number");
  });

  it("a failed result is flagged isError with error and error_type", async () => {
    const raw = await s.client.callTool({ name: "lint", arguments: { path: "/nope" } });
    expect(raw.isError).toBe(true);
    // Once, as text (no outputSchema, so no structuredContent: a client would pay for the JSON twice).
    expect(raw.structuredContent).toBeUndefined();
    expect(raw.content).toHaveLength(1);
    expect(JSON.parse((raw.content as { text: string }[])[0]!.text)).toMatchObject({
      success: false,
      error_type: "path_validation",
    });
  });
});
