/**
 * Starts the real built server (dist/cli.js) as a child process and connects the SDK's Client to it,
 * over stdio or Streamable HTTP. Every test that goes through MCP uses these.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CLI = path.join(REPO_ROOT, "dist", "cli.js");
export const FIXTURES = path.join(REPO_ROOT, "test", "fixtures");

export interface ServerOptions {
  /** Extra CLI flags (e.g. ["--allowed-paths", dir]). An audit log in a temp dir is added unless given. */
  args?: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
}

export interface Connected {
  client: Client;
  /** Calls a tool and returns its JSON result (the text content; structuredContent for drop-in tools). */
  call(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
  stderr: () => string;
  auditLog: string;
  /** The server's pid (stdio servers). */
  pid?: number;
}

/** The server's environment: ours with overrides; an override of undefined removes the variable. */
function childEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = { ...process.env, ...overrides };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env as Record<string, string>;
}

function withAuditLog(args: string[]): { args: string[]; auditLog: string } {
  const i = args.indexOf("--audit-log");
  if (i !== -1) return { args, auditLog: args[i + 1] as string };
  const auditLog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-audit-")), "audit.log");
  return { args: [...args, "--audit-log", auditLog], auditLog };
}

/**
 * A tool result's JSON as a client reads it: the text content (the server sends `structuredContent` only for
 * tools with an outputSchema, and then the same JSON).
 */
export function resultOf(r: Record<string, unknown>): Record<string, unknown> {
  const text = (r.content as { type: string; text?: string }[] | undefined)?.find(
    (c) => c.type === "text",
  )?.text;
  return (r.structuredContent ?? JSON.parse(text ?? "null")) as Record<string, unknown>;
}

function wrap(client: Client, close: () => Promise<void>, stderr: () => string, auditLog: string): Connected {
  return {
    client,
    stderr,
    auditLog,
    close,
    async call(name, args = {}) {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
      return resultOf(r);
    },
  };
}

/** The server over stdio, as an MCP client launches it. */
export async function connectStdio(options: ServerOptions = {}): Promise<Connected> {
  const { args, auditLog } = withAuditLog(options.args ?? []);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "--mode", "stdio", "--log-level", "warn", ...args],
    cwd: options.cwd ?? REPO_ROOT,
    env: childEnv(options.env),
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (c: Buffer) => (err += c.toString()));
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  return {
    ...wrap(
      client,
      () => client.close(),
      () => err,
      auditLog,
    ),
    pid: transport.pid ?? undefined,
  };
}

export interface HttpServer {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  auditLog: string;
  stop(): Promise<void>;
}

/** The server in HTTP mode on a free port; resolves once it prints its address. */
export async function startHttp(options: ServerOptions = {}): Promise<HttpServer> {
  const { args, auditLog } = withAuditLog(options.args ?? []);
  const child = spawn(process.execPath, [CLI, "--mode", "standalone", "--port", "0", ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: childEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 20_000);
    child.stderr!.on("data", (c: Buffer) => {
      err += c.toString();
      const m = /listening on (http:\/\/\S+?) /.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code}: ${err}`));
    });
  });
  return {
    url,
    child,
    auditLog,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The SDK Client over Streamable HTTP to a running server. */
export async function connectHttp(
  server: HttpServer,
  headers: Record<string, string> = {},
): Promise<Connected> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers },
  });
  const client = new Client({ name: "test-http", version: "1.0.0" });
  await client.connect(transport);
  return wrap(client, () => client.close(), server.stderr, server.auditLog);
}
