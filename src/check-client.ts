/**
 * `check --daemon` as a small client (bin/mcp-code-quality runs it for a check the daemon is asked for, by
 * --daemon or MCP_CODE_QUALITY_CHECK_DAEMON=1): a few modules that find the daemon, prove themselves to it
 * and copy its answer, instead of the whole command line loaded to do the same. Whatever the daemon cannot
 * serve, and every other command, runs the whole command line in this process, with --no-daemon so the
 * daemon is not asked twice.
 */
import { pathToFileURL } from "node:url";
import { daemonChoice } from "./check/daemon/flags.js";
import { exitWhenFlushed, ignoreClosedStdout } from "./exit-flushed.js";
import { codePath } from "./package-root.js";

const argv = process.argv.slice(2);
const entry = codePath("cli.js");
let rest = argv;
if (argv[0] === "check") {
  const choice = daemonChoice(argv.slice(1), process.env);
  if (choice.action === "run") {
    ignoreClosedStdout();
    const { checkThroughDaemon } = await import("./check/daemon/client.js");
    const code = await checkThroughDaemon(choice.argv, entry);
    if (code !== undefined) await exitWhenFlushed(code);
    rest = ["check", ...choice.argv, "--no-daemon"];
  }
}
const { start } = await import("./start.js");
await start(rest, pathToFileURL(entry).href);
