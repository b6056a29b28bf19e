/** HTTP mode: /health, /mcp/execute, Streamable HTTP through the SDK client, Host/Origin checks, tokens. */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, connectHttp, startHttp, type HttpServer } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

/** A raw request, so Host and Origin headers can be forged. */
function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? "GET", headers: options.headers }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

const json = { "content-type": "application/json" };
let dir: string;
let server: HttpServer;
beforeAll(async () => {
  dir = tempDir("mcq-http-");
  fs.writeFileSync(path.join(dir, "a.py"), "import os\n");
  server = await startHttp({
    args: ["--allowed-paths", dir, "--max-body-bytes", "2048"],
    cwd: dir,
    env: { PATH: "/usr/bin:/bin" },
  });
});
afterAll(() => server.stop());

describe("HTTP endpoints", () => {
  it("binds 127.0.0.1 by default and answers /health", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await request(`${server.url}/health`);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ status: "ok" });
  });

  it("runs a tool through POST /mcp/execute", async () => {
    const r = await request(`${server.url}/mcp/execute`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ tool: "lint", arguments: { path: "a.py", linter: "ruff" } }),
    });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({
      success: true,
      passed: false,
      issues: ["a.py:1:8: F401 `os` imported but unused"],
      issue_count: 1,
    });
  });

  it("answers invalid arguments with 400 and an unknown tool with 404", async () => {
    const bad = await request(`${server.url}/mcp/execute`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ tool: "lint", arguments: { path: "a.py", linter: "pylint" } }),
    });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toMatch(/linter/);
    const unknown = await request(`${server.url}/mcp/execute`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ tool: "nope" }),
    });
    expect(unknown.status).toBe(404);
    const notJson = await request(`${server.url}/mcp/execute`, { method: "POST", headers: json, body: "{" });
    expect(notJson.status).toBe(400);
  });

  it("caps request bodies", async () => {
    const r = await request(`${server.url}/mcp/execute`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ tool: "lint", arguments: { path: "x".repeat(4000) } }),
    });
    expect(r.status).toBe(413);
  });

  it("speaks Streamable HTTP to the SDK client", async () => {
    const c = await connectHttp(server);
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).toContain("lint");
    const r = await c.call("lint", { path: "a.py" });
    expect(r.issues).toEqual(["a.py:1:8: F401 `os` imported but unused"]);
    await c.close();
  });

  it("refuses a foreign Host or Origin with 403 (DNS rebinding)", async () => {
    const port = new URL(server.url).port;
    const host = await request(`${server.url}/mcp/execute`, {
      method: "POST",
      headers: { ...json, host: `evil.example:${port}` },
      body: "{}",
    });
    expect(host.status).toBe(403);
    const origin = await request(`${server.url}/mcp`, {
      method: "POST",
      headers: { ...json, origin: "http://evil.example" },
      body: "{}",
    });
    expect(origin.status).toBe(403);
    const local = await request(`${server.url}/health`, {
      headers: { host: `localhost:${port}`, origin: `http://localhost:${port}` },
    });
    expect(local.status).toBe(200);
  });
});

describe("binding beyond loopback", () => {
  it("refuses to start without a token", async () => {
    const child = spawn(process.execPath, [CLI, "--mode", "standalone", "--host", "0.0.0.0", "--port", "0"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (c) => (err += c));
    const code = await new Promise((r) => child.on("exit", r));
    expect(code).toBe(2);
    expect(err).toMatch(/--host 0\.0\.0\.0 is not a loopback address: set --auth-token/);
  });

  it("requires the bearer token when one is set", async () => {
    const s = await startHttp({
      args: ["--allowed-paths", dir, "--host", "0.0.0.0", "--auth-token", "s3cret"],
      cwd: dir,
    });
    try {
      const port = new URL(s.url).port;
      const base = `http://127.0.0.1:${port}`;
      const body = JSON.stringify({ tool: "get_audit_log", arguments: {} });
      expect((await request(`${base}/mcp/execute`, { method: "POST", headers: json, body })).status).toBe(
        401,
      );
      expect(
        (
          await request(`${base}/mcp/execute`, {
            method: "POST",
            headers: { ...json, authorization: "Bearer wrong" },
            body,
          })
        ).status,
      ).toBe(401);
      const ok = await request(`${base}/mcp/execute`, {
        method: "POST",
        headers: { ...json, authorization: "Bearer s3cret" },
        body,
      });
      expect(ok.status).toBe(200);
      const c = await connectHttp({ ...s, url: base }, { authorization: "Bearer s3cret" });
      expect((await c.client.listTools()).tools.length).toBeGreaterThan(3);
      await c.close();
    } finally {
      await s.stop();
    }
  });
});
