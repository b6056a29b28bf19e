/**
 * Seed 000's modes: `--mode server` is the HTTP server, `--mode client` calls a running one's tool (a real
 * server on 127.0.0.1, the real CLI as client), printing the JSON result and exiting 0/1 on `passed`.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECK_FIXTURES, PATH_WITH_TOOLS } from "../helpers/check.js";
import { CLI, startHttp, type HttpServer } from "../helpers/server.js";
import { missing, TOOLS_VENV_BIN } from "../helpers/tools.js";

const TOKEN = "client-mode-secret";

/** The CLI in client mode; `token: null` leaves the token variable out. */
function client(args: string[], token: string | null = TOKEN) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    MCP_CODE_QUALITY_AUTH_TOKEN: token ?? undefined,
  };
  if (token === null) delete env.MCP_CODE_QUALITY_AUTH_TOKEN;
  const child = spawn(process.execPath, [CLI, "--mode", "client", ...args], {
    env: env as Record<string, string>,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (status) => resolve({ status, stdout, stderr })),
  );
}

describe("--mode server and --mode client", () => {
  let server: HttpServer;
  let port: string;
  beforeAll(async () => {
    // The helper starts `--mode standalone`; the later `--mode server` is the one that counts.
    server = await startHttp({
      args: ["--mode", "server", "--allowed-paths", CHECK_FIXTURES],
      env: { MCP_CODE_QUALITY_AUTH_TOKEN: TOKEN, PATH: PATH_WITH_TOOLS },
    });
    port = new URL(server.url).port;
  }, 30_000);
  afterAll(() => server?.stop());

  it("--mode server is the HTTP server", async () => {
    const health = (await (await fetch(`${server.url}/health`)).json()) as { status: string };
    expect(health.status).toBe("ok");
  });

  // The ruff CLI's `[*]` (fixable) marker: the embedded ruff, its fallback, does not print it.
  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
    "prints the tool's JSON result and exits 1 when it did not pass, 0 when it did",
    async () => {
      const failing = await client([
        "--port",
        port,
        "--tool",
        "lint",
        "--arguments",
        JSON.stringify({ path: path.join(CHECK_FIXTURES, "python") }),
      ]);
      expect(failing.status).toBe(1);
      const result = JSON.parse(failing.stdout) as { success: boolean; passed: boolean; issues: string[] };
      expect(result).toMatchObject({
        success: true,
        passed: false,
        issues: ["app.py:1:8: F401 [*] `os` imported but unused"],
      });

      const passing = await client([
        "--port",
        port,
        "--tool",
        "format_check",
        "--arguments",
        JSON.stringify({ path: path.join(CHECK_FIXTURES, "python-clean") }),
      ]);
      expect(passing.status).toBe(0);
      expect(JSON.parse(passing.stdout)).toMatchObject({ success: true, formatted: true });
    },
  );

  it("takes the token from MCP_CODE_QUALITY_AUTH_TOKEN: a wrong or missing one is exit 2 with the server's answer", async () => {
    const args = ["--port", port, "--tool", "get_audit_log"];
    const wrong = await client(args, "not-the-token");
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("answered 401");
    expect((await client(args, null)).status).toBe(2);
    expect((await client(args)).status).toBe(0);
  });

  it("refuses bad arguments, unknown tools and an unreachable server with exit 2", async () => {
    const bad = await client(["--port", port, "--tool", "lint", "--arguments", "[1]"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--arguments must be a JSON object");
    const unknown = await client(["--port", port, "--tool", "no_such_tool"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("answered 404");
    expect((await client(["--port", port])).stderr).toContain("--tool is required");
    await server.stop();
    const down = await client(["--port", port, "--tool", "get_audit_log"]);
    expect(down.status).toBe(2);
    expect(down.stderr).toContain(`cannot reach http://127.0.0.1:${port}/mcp/execute`);
  });
});
