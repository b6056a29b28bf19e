/**
 * `--mode client` (seed 000): calls one tool of a running HTTP server (POST /mcp/execute at --host and
 * --port, with the bearer token from MCP_CODE_QUALITY_AUTH_TOKEN or --auth-token), prints the JSON result
 * and exits 0 when it passed, 1 when it did not (or failed), 2 on a usage or connection error.
 */
import type { Config } from "../config.js";

export interface ClientIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

/** The tool call's arguments: a JSON object, or an error message. */
export function parseArguments(raw: string | undefined): Record<string, unknown> | string {
  if (raw === undefined) return {};
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // Falls through to the message.
  }
  return `--arguments must be a JSON object, got ${raw}`;
}

/** 0 when the result passed (success, and neither `passed` nor `formatted` false), else 1. */
export function clientExitCode(result: unknown): number {
  if (typeof result !== "object" || result === null) return 1;
  const r = result as { success?: unknown; passed?: unknown; formatted?: unknown };
  return r.success === true && r.passed !== false && r.formatted !== false ? 0 : 1;
}

export function executeUrl(host: string, port: number): string {
  const h = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `http://${h}:${port}/mcp/execute`;
}

export async function runClient(config: Config, io: ClientIo = process): Promise<number> {
  const fail = (message: string) => {
    io.stderr.write(`mcp-code-quality client: ${message}\n`);
    return 2;
  };
  if (!config.clientTool) return fail('--tool is required (e.g. --tool lint --arguments \'{"path": "."}\')');
  const args = parseArguments(config.clientArguments);
  if (typeof args === "string") return fail(args);
  const url = executeUrl(config.host, config.port);
  // The server's own time limit per tool run, and some room for the answer. Node's fetch gives up on an
  // answer's headers after 300 s whatever the signal says (a 5-minute cargo test ended in "Headers Timeout
  // Error"): undici's own fetch with a dispatcher waits as long as the limit.
  const limitMs = (config.timeout + 30) * 1000;
  const { Agent, fetch } = await import("undici");
  const dispatcher = new Agent({ headersTimeout: limitMs, bodyTimeout: limitMs });
  let response: Awaited<ReturnType<typeof fetch>>;
  try {
    response = await fetch(url, {
      dispatcher,
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(config.authToken ? { authorization: `Bearer ${config.authToken}` } : {}),
      },
      body: JSON.stringify({ tool: config.clientTool, arguments: args }),
      signal: AbortSignal.timeout(limitMs),
    });
  } catch (err) {
    await dispatcher.close();
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
    return fail(`cannot reach ${url}${cause || (err instanceof Error ? `: ${err.message}` : "")}`);
  }
  const text = await response.text();
  await dispatcher.close();
  if (!response.ok) return fail(`${url} answered ${response.status}: ${text}`);
  let result: unknown;
  try {
    result = JSON.parse(text);
  } catch {
    return fail(`${url} did not answer JSON: ${text.slice(0, 200)}`);
  }
  io.stdout.write(JSON.stringify(result, null, 2) + "\n");
  return clientExitCode(result);
}
