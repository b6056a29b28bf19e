/**
 * HTTP mode: Streamable HTTP at /mcp (stateless: a fresh protocol server per request over the one
 * engine), GET /health, and seed 000's POST /mcp/execute. Refuses foreign Host/Origin headers (DNS
 * rebinding), requires the bearer token when one is set, and caps request bodies.
 * Slow clients are bounded: a request must arrive whole within --http-request-timeout (its headers within
 * 10 s at most), and at most --max-connections are open at once (more are dropped on accept). Once a
 * request has arrived, its answer may take as long as the tool call's own --timeout.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { timingSafeEqual } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Engine } from "../engine/engine.js";
import { InvalidArgumentsError } from "../errors.js";
import { createMcpServer } from "./server.js";
import { VERSION } from "../version.js";

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]", "::1"];

/** Host names (without port) a request may address: loopback names plus the bind address. */
export function allowedHostNames(bindHost: string): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  if (bindHost !== "0.0.0.0" && bindHost !== "::")
    names.add(bindHost.includes(":") ? `[${bindHost}]` : bindHost);
  return names;
}

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  return hostHeader.split(":")[0] ?? "";
}

function checkHeaders(req: http.IncomingMessage, hosts: Set<string>, token: string | undefined): void {
  const host = req.headers.host;
  if (!host || !hosts.has(hostnameOf(host).toLowerCase()))
    throw new HttpError(403, `Forbidden host: ${host ?? "(none)"}`);
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let originHost: string;
    try {
      originHost = new URL(origin).hostname;
    } catch {
      throw new HttpError(403, `Forbidden origin: ${origin}`);
    }
    if (!hosts.has(originHost.toLowerCase()) && !hosts.has(`[${originHost}]`))
      throw new HttpError(403, `Forbidden origin: ${origin}`);
  }
  if (token !== undefined) {
    const given = Buffer.from(req.headers.authorization ?? "");
    const expected = Buffer.from(`Bearer ${token}`);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new HttpError(401, "Missing or wrong bearer token");
  }
}

async function readJsonBody(req: http.IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > maxBytes) throw new HttpError(413, `Request body over ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new HttpError(413, `Request body over ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "Request body is not valid JSON");
  }
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function handleExecute(engine: Engine, body: unknown, res: http.ServerResponse): Promise<void> {
  if (typeof body !== "object" || body === null || typeof (body as { tool?: unknown }).tool !== "string")
    throw new HttpError(400, 'Body must be {"tool": "<name>", "arguments": {...}}');
  const { tool, arguments: args } = body as { tool: string; arguments?: unknown };
  if (!engine.getTool(tool)) throw new HttpError(404, `Unknown tool: ${tool}`);
  try {
    sendJson(res, 200, await engine.call(tool, args));
  } catch (err) {
    if (err instanceof InvalidArgumentsError) throw new HttpError(400, err.message);
    throw err;
  }
}

/** Whether a JSON-RPC message (or batch) is a request that asks for progress notifications. */
function asksForProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const meta = (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta?.progressToken !== undefined;
  });
}

async function handleMcp(engine: Engine, req: http.IncomingMessage, res: http.ServerResponse, body: unknown) {
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST" }).end();
    return;
  }
  const server = createMcpServer(engine);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    // One JSON answer, unless a call asks for progress: then an event stream, which can carry it first.
    enableJsonResponse: !asksForProgress(body),
  });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

export interface HttpServerHandle {
  server: http.Server;
  url: string;
  close(): Promise<void>;
}

export async function startHttpServer(engine: Engine): Promise<HttpServerHandle> {
  const { config, log } = engine;
  const hosts = allowedHostNames(config.host);
  const requestTimeoutMs = config.httpRequestTimeout * 1000;
  const server = http.createServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout: Math.min(requestTimeoutMs, 10_000),
      // How often Node checks those timeouts (its default, 30 s, would let a slow client stay that long).
      connectionsCheckingInterval: Math.min(1000, requestTimeoutMs),
    },
    (req, res) => {
      void (async () => {
        try {
          checkHeaders(req, hosts, req.url === "/health" ? undefined : config.authToken);
          const url = new URL(req.url ?? "/", "http://localhost");
          if (url.pathname === "/health" && req.method === "GET") {
            sendJson(res, 200, { status: "ok", version: VERSION, tools: engine.listTools().length });
            return;
          }
          if (url.pathname === "/mcp/execute") {
            if (req.method !== "POST") throw new HttpError(405, "Use POST");
            await handleExecute(engine, await readJsonBody(req, config.maxBodyBytes), res);
            return;
          }
          if (url.pathname === "/mcp") {
            const body = req.method === "POST" ? await readJsonBody(req, config.maxBodyBytes) : undefined;
            await handleMcp(engine, req, res, body);
            return;
          }
          throw new HttpError(404, `Not found: ${url.pathname}`);
        } catch (err) {
          const status = err instanceof HttpError ? err.status : 500;
          if (status === 500) log.error(`HTTP ${req.method} ${req.url}: ${String(err)}`);
          if (!res.headersSent)
            sendJson(res, status, { error: err instanceof Error ? err.message : String(err) });
          else res.end();
        }
      })();
    },
  );
  server.maxConnections = config.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${hostForUrl}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
