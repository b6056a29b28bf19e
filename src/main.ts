/**
 * Command line: flags and environment → Config → the server over stdio or HTTP. Started by an entry point:
 * `cli.ts` (mcp-code-quality) or `eslint-typescript-mcp.ts` (the seed-001 drop-in, stdio by default).
 */
import path from "node:path";
import v8 from "node:v8";
import { asksHelp, commandWord, unknownCommand, UsageError } from "./cli/args.js";
import { helpText, isLoopbackHost, loadConfig, type Config, type Program } from "./config.js";
import type { Engine } from "./engine/engine.js";
import type { ToolDefinition } from "./engine/tool.js";
import { endAllChildren } from "./exec/child-groups.js";
import { exitWhenFlushed, ignoreClosedStdout } from "./exit-flushed.js";
import { createLogger, type Logger } from "./log.js";
import { codePath } from "./package-root.js";
import { REQUEST_TOO_LARGE, stdioLines } from "./mcp/stdio-lines.js";
import { toolsetClash } from "./mcp/tools/toolset-names.js";
import { VERSION } from "./version.js";
import { guardRegexpBacktracking } from "./regexp-guard.js";
import { deferMarkingForOneShot } from "./one-shot-gc.js";

/** A shutdown that has not finished by then exits anyway (the exit handler still ends every child). */
const SHUTDOWN_DEADLINE_MS = 1500;

/** The largest stdio request: three SARIF logs at --sarif-max-bytes (as JSON text), --max-body-bytes, 10 MiB. */
function stdioMessageLimit(config: Config): number {
  return Math.max(10 * 1024 * 1024, config.maxBodyBytes, 3 * config.sarifMaxBytes);
}

function fail(message: string): never {
  process.stderr.write(`mcp-code-quality: ${message}\n`);
  process.exit(2);
}

/** The entry point's own file (dist/cli.js or dist/eslint-typescript-mcp.js), named in the banner. */
let entryFile = codePath("cli.js");

/** Which program the entry file is: its help is its own. */
const programOf = (entry: string): Program =>
  path.basename(entry).startsWith("eslint-typescript-mcp") ? "eslint-typescript-mcp" : "mcp-code-quality";

function startupBanner(url: string, config: Config): string {
  const auth = config.authToken ? ` -H 'Authorization: Bearer $MCP_CODE_QUALITY_AUTH_TOKEN'` : "";
  const mcpJson = {
    mcpServers: {
      "code-quality": {
        command: "node",
        args: [entryFile, "--mode", "stdio", "--allowed-paths", config.allowedPaths.join(",")],
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

/**
 * The server's arguments for a command line that names no other command: `serve` is the server said
 * aloud, `client` is `--mode client`; any other word is a mistake.
 */
function serverArguments(argv: string[]): string[] {
  const word = commandWord(argv);
  if (word === undefined) return argv;
  if (word === "serve") return argv.slice(1);
  if (word === "client") return ["--mode", "client", ...argv.slice(1)];
  fail(unknownCommand(word, "mcp-code-quality").message);
}

/** V8's tier-up threshold in a one-shot `check` process (see main). */
const ONE_SHOT_INTERRUPT_BUDGET = 2 * 1024 * 1024;

async function main(commandLine: string[]): Promise<void> {
  const word = commandWord(commandLine);
  if (word === "policy" || word === "hook") {
    process.exitCode = await (await import("./hooks/cli.js")).runSubcommand(commandLine);
    return;
  }
  if (word === "check-daemon") {
    // Started by `check --daemon` (src/check/daemon/client.ts): <socket> <idle seconds>.
    const { runCheckDaemon } = await import("./check/daemon/server.js");
    const [, socket = "", idleSeconds] = commandLine;
    if (!(await runCheckDaemon(socket, Number(idleSeconds) * 1000))) process.exit(0);
    return;
  }
  if (word === "check") {
    const { daemonChoice } = await import("./check/daemon/flags.js");
    const choice = daemonChoice(commandLine.slice(1), process.env);
    ignoreClosedStdout();
    if (choice.action === "stop" || choice.action === "status") {
      const { daemonControl } = await import("./check/daemon/client.js");
      await exitWhenFlushed(await daemonControl(choice.action));
    }
    if (choice.action === "run") {
      const { checkThroughDaemon } = await import("./check/daemon/client.js");
      const code = await checkThroughDaemon(choice.argv, entryFile);
      if (code !== undefined) await exitWhenFlushed(code);
    }
    const { runCheckCommand } = await import("./check/command.js");
    // A check run here is over in a second or two. On V8's default threshold its optimizing compiler would
    // compile hundreds of a parser's small functions (micromark's, for the Markdown links) on background
    // threads, again after each deoptimization: as much CPU as the check itself, for code the process
    // ends before it pays back. A threshold 30 times V8's 66 KiB (of bytecode run) optimizes only what
    // stays hot: a cold `check --only links` used a quarter to a third less CPU on rust-lang/book and
    // electron's docs (docs/tools/check_markdown_links.md; 2 MiB rather than 4 since the Markdown is
    // parsed a section at a time).
    v8.setFlagsFromString(`--interrupt-budget=${ONE_SHOT_INTERRUPT_BUDGET}`);
    // And no incremental marking of the old generation while nothing allocates much (src/one-shot-gc.ts).
    deferMarkingForOneShot();
    process.on("exit", () => endAllChildren("SIGKILL"));
    // A check run here (not the daemon's) keeps its answer under the command line as given.
    const answerArgv = choice.action === "off" ? commandLine.slice(1) : undefined;
    await exitWhenFlushed(await runCheckCommand(choice.argv, undefined, answerArgv));
  }
  const argv = serverArguments(commandLine);
  if (asksHelp(argv)) {
    process.stdout.write(helpText(programOf(entryFile)) + "\n");
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
    if (err instanceof UsageError) fail(err.message);
    throw err;
  }
  if (config.mode === "client") {
    const { runClient } = await import("./client/call-tool.js");
    ignoreClosedStdout();
    await exitWhenFlushed(await runClient(config));
  }
  if (config.mode === "standalone" && !isLoopbackHost(config.host) && !config.authToken)
    fail(
      `--host ${config.host} is not a loopback address: set --auth-token (or MCP_CODE_QUALITY_AUTH_TOKEN)`,
    );
  const log = createLogger(config.logLevel);
  // Clashing toolsets are a start-up error, found from the names alone; over stdio the tools are built
  // with the engine, after `initialize` has been answered.
  const clash = toolsetClash(config.toolsets);
  if (clash) fail(clash);
  let tools: ToolDefinition[] | undefined;
  if (config.mode !== "stdio") {
    try {
      tools = (await import("./mcp/tools/index.js")).toolsFor(config.toolsets, {
        retainTraces: config.retainTraces,
      });
    } catch (err) {
      fail(err instanceof Error ? err.message : String(err));
    }
  }
  let engineLoad: Promise<Engine> | undefined;
  const loadEngine = () => (engineLoad ??= startEngine(config, log, tools));

  let closeTransport: () => Promise<void>;
  if (config.mode === "stdio") {
    // Imported here, not at the top: the MCP SDK (with ajv and zod-to-json-schema, ~130 files) is not
    // needed by `check`, `hook`, `policy` or `--version`.
    const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([
      import("./mcp/server.js"),
      import("@modelcontextprotocol/sdk/server/stdio.js"),
    ]);
    const server = createMcpServer(loadEngine);
    // Once the client has its answer to `initialize`, load the rest while it prepares its next request.
    server.server.oninitialized = () => void loadEngine().catch(() => {});
    // Requests up to the largest a SARIF tool takes (two logs at --sarif-max-bytes, as JSON text), else an answer.
    const maxLineBytes = stdioMessageLimit(config);
    const lines = stdioLines({
      maxLineBytes,
      onTooLarge(bytes, id) {
        const message = `the request is ${bytes} bytes, over the ${maxLineBytes}-byte limit of a stdio message (3 × --sarif-max-bytes, at least --max-body-bytes and 10 MiB): pass large SARIF logs as retained trace ids, or raise --sarif-max-bytes`;
        log.warn(`request${id === undefined ? "" : ` ${String(id)}`} refused: ${message}`);
        if (id !== undefined)
          process.stdout.write(
            JSON.stringify({ jsonrpc: "2.0", id, error: { code: REQUEST_TOO_LARGE, message } }) + "\n",
          );
      },
    });
    process.stdin.pipe(lines);
    await server.connect(
      new StdioServerTransport(lines, process.stdout, { maxBufferSize: maxLineBytes + 1 }),
    );
    closeTransport = () => server.close();
    // A client that goes away closes our stdin: nothing is left to answer, so the server ends.
    process.stdin.on("end", () => void shutdown());
    process.stdin.on("close", () => void shutdown());
  } else {
    const engine = await loadEngine();
    const { startHttpServer } = await import("./mcp/http.js");
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
    if (engineLoad) await (await engineLoad.catch(() => undefined))?.close().catch(() => {});
    process.exit(0);
  }
  // Every exit path (a shutdown, a fatal error) ends the workers, daemons and runs still alive,
  // with their process groups and whatever left them.
  process.on("exit", () => endAllChildren("SIGKILL"));
  process.on("SIGINT", () => void shutdown());
  process.on("SIGTERM", () => void shutdown());
  process.on("SIGHUP", () => void shutdown());
}

/** Imports the engine and the tools, builds the engine, and starts crash recovery in the background. */
async function startEngine(config: Config, log: Logger, tools?: ToolDefinition[]): Promise<Engine> {
  const [{ Engine }, { recoverAtStartup }, toolsModule] = await Promise.all([
    import("./engine/engine.js"),
    import("./fix/recovery.js"),
    tools ? undefined : import("./mcp/tools/index.js"),
  ]);
  const engine = new Engine(
    config,
    log,
    tools ?? toolsModule?.toolsFor(config.toolsets, { retainTraces: config.retainTraces }) ?? [],
  );
  // A server answers many calls on the same trees: it learns their changes from the kernel (tree-watch.ts).
  if (config.treeWatch) {
    const { sharedTree } = await import("./paths/tree-scan.js");
    sharedTree.watchTree(engine.allowlist.roots.effective);
  }
  // The policy bundle is compiled once, now; an invalid one stops the server with file, line and reason.
  const { registerPolicyServices } = await import("./policy/runtime.js");
  await registerPolicyServices(
    engine.services,
    engine.allowlist.roots.effective,
    config.policyAllowLoosening,
  ).catch((err: unknown) =>
    fail(`invalid policy bundle:\n${err instanceof Error ? err.message : String(err)}`),
  );
  // Transactions a killed server left half-done are finished or undone in the background.
  void recoverAtStartup(engine.allowlist.roots.effective, config.cacheAuditMaxBytes, log).catch(
    (err: unknown) =>
      log.warn(`start-up recovery failed: ${err instanceof Error ? err.message : String(err)}`),
  );
  if (config.mode === "stdio")
    log.info(
      `mcp-code-quality ${VERSION} on stdio; allowed paths: ${engine.allowlist.roots.effective.join(", ")}`,
    );
  return engine;
}

/** Runs the command line `argv` (process.argv without node and the script), started from `entry`. */
export function run(argv: string[], entry: string): void {
  guardRegexpBacktracking();
  entryFile = entry;
  main(argv).catch((err: unknown) => {
    fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
  });
}
