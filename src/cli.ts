#!/usr/bin/env node
/** Command line: flags and environment → Config → the server over stdio or HTTP. */
import { fileURLToPath } from "node:url";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ConfigError, helpText, isLoopbackHost, loadConfig, type Config } from "./config.js";
import { Engine } from "./engine/engine.js";
import { endAllChildren } from "./exec/child-groups.js";
import { recoverAtStartup } from "./fix/recovery.js";
import { createLogger } from "./log.js";
import { startHttpServer } from "./mcp/http.js";
import { createMcpServer } from "./mcp/server.js";
import { toolsFor } from "./mcp/tools/index.js";
import { VERSION } from "./version.js";

/** A shutdown that has not finished by then exits anyway (the exit handler still ends every child). */
const SHUTDOWN_DEADLINE_MS = 1500;

function fail(message: string): never {
  process.stderr.write(`mcp-code-quality: ${message}\n`);
  process.exit(2);
}

function startupBanner(url: string, config: Config): string {
  const auth = config.authToken ? ` -H 'Authorization: Bearer $MCP_CODE_QUALITY_AUTH_TOKEN'` : "";
  const mcpJson = {
    mcpServers: {
      "code-quality": {
        command: "node",
        args: [
          fileURLToPath(import.meta.url),
          "--mode",
          "stdio",
          "--allowed-paths",
          config.allowedPaths.join(","),
        ],
      },
    },
  };
  return [
    `mcp-code-quality ${VERSION} listening on ${url} (MCP Streamable HTTP at ${url}/mcp)`,
    `allowed paths: ${config.allowedPaths.join(", ")}`,
    "",
    "Try it:",
    `  curl${auth} ${url}/health`,
    `  curl${auth} -X POST ${url}/mcp/execute -H 'Content-Type: application/json' \\`,
    `    -d '{"tool": "lint", "arguments": {"path": ".", "linter": "ruff"}}'`,
    "",
    "Use it from an MCP client over stdio (.mcp.json):",
    JSON.stringify(mcpJson, null, 2)
      .split("\n")
      .map((l) => `  ${l}`)
      .join("\n"),
    "",
  ].join("\n");
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(helpText() + "\n");
    return;
  }
  if (argv.includes("--version")) {
    process.stdout.write(VERSION + "\n");
    return;
  }
  let config: Config;
  try {
    config = loadConfig(argv);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  if (config.mode === "standalone" && !isLoopbackHost(config.host) && !config.authToken)
    fail(
      `--host ${config.host} is not a loopback address: set --auth-token (or MCP_CODE_QUALITY_AUTH_TOKEN)`,
    );
  const log = createLogger(config.logLevel);
  let tools;
  try {
    tools = toolsFor(config.toolsets);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const engine = new Engine(config, log, tools);
  // Transactions a killed server left half-done are finished or undone in the background.
  void recoverAtStartup(engine.allowlist.roots.effective, config.cacheAuditMaxBytes, log).catch(
    (err: unknown) =>
      log.warn(`start-up recovery failed: ${err instanceof Error ? err.message : String(err)}`),
  );

  let closeTransport: () => Promise<void>;
  if (config.mode === "stdio") {
    const server = createMcpServer(engine);
    await server.connect(new StdioServerTransport());
    log.info(
      `mcp-code-quality ${VERSION} on stdio; allowed paths: ${engine.allowlist.roots.effective.join(", ")}`,
    );
    closeTransport = () => server.close();
    // A client that goes away closes our stdin: nothing is left to answer, so the server ends.
    process.stdin.on("end", () => void shutdown());
    process.stdin.on("close", () => void shutdown());
  } else {
    let handle;
    try {
      handle = await startHttpServer(engine);
    } catch (err) {
      fail(
        `cannot listen on ${config.host}:${config.port}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    if (config.logLevel !== "silent") process.stderr.write(startupBanner(handle.url, config));
    closeTransport = handle.close;
  }

  let closing = false;
  async function shutdown(): Promise<void> {
    if (closing) return;
    closing = true;
    // Whatever hangs below, the server ends what it started and exits well within 2 s.
    setTimeout(() => process.exit(0), SHUTDOWN_DEADLINE_MS).unref();
    await closeTransport().catch(() => {});
    await engine.close().catch(() => {});
    process.exit(0);
  }
  // Every exit path (a shutdown, a fatal error) ends the workers, daemons and runs still alive,
  // with their process groups and whatever left them.
  process.on("exit", () => endAllChildren("SIGKILL"));
  process.on("SIGINT", () => void shutdown());
  process.on("SIGTERM", () => void shutdown());
  process.on("SIGHUP", () => void shutdown());
}

main(process.argv.slice(2)).catch((err: unknown) => {
  fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
});
