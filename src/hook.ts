#!/usr/bin/env node
/**
 * The hooks' own entry point (`node dist/hook.js claude-code|pre-commit`): it loads the hook and nothing of
 * the server (no MCP SDK, no zod, no config), so a Claude Code decision costs little more than Node's start.
 * The git hook comes from the command line's bundle (dist/bundle/pre-commit.mjs, scripts/bundle-cli.mjs)
 * when it is there: a few files to load instead of some two hundred modules, which was most of a commit's
 * wait. `mcp-code-quality hook …` (cli.js) runs the same hooks. `pre-commit --daemon` (or
 * MCP_CODE_QUALITY_CHECK_DAEMON=1) hands the commit to the check daemon, which runs the same hook warm.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { guardRegexpBacktracking } from "./regexp-guard.js";

// A hook process ends as soon as it has answered: V8 need not optimise the shell parser's WebAssembly.
v8.setFlagsFromString("--liftoff-only");
guardRegexpBacktracking();

type PreCommit = typeof import("./hooks/pre-commit.js");
const PRE_COMMIT_BUNDLE = new URL("./bundle/pre-commit.mjs", import.meta.url);
type DaemonClient = typeof import("./hooks/daemon-client.js");
const DAEMON_CLIENT_BUNDLE = new URL("./bundle/hook-daemon-client.mjs", import.meta.url);

const kind = process.argv[2];
if (kind === "claude-code") await (await import("./hooks/claude-code.js")).runClaudeCodeHook();
else if (kind === "pre-commit") {
  let argv = process.argv.slice(3);
  let served: number | undefined;
  // --daemon (or MCP_CODE_QUALITY_CHECK_DAEMON): a small client that asks the warm check daemon
  // (src/check/daemon/client.ts); whatever it cannot serve runs here, as without the flag.
  if (
    process.env.MCP_CODE_QUALITY_CHECK_DAEMON !== undefined ||
    argv.some((a) => /^--(no-)?daemon$/.test(a))
  ) {
    const client = (
      fs.existsSync(DAEMON_CLIENT_BUNDLE)
        ? await import(DAEMON_CLIENT_BUNDLE.href)
        : await import("./hooks/daemon-client.js")
    ) as DaemonClient;
    const choice = client.hookDaemonChoice(argv, process.env);
    argv = choice.argv;
    if (choice.daemon)
      served = await client.preCommitThroughDaemon(argv, fileURLToPath(new URL("./cli.js", import.meta.url)));
  }
  let code: number;
  if (served !== undefined) code = served;
  else {
    const hook = (
      fs.existsSync(PRE_COMMIT_BUNDLE)
        ? await import(PRE_COMMIT_BUNDLE.href)
        : await import("./hooks/pre-commit.js")
    ) as PreCommit;
    code = await hook.runPreCommitHook(process.env, argv);
  }
  process.stderr.write("", () => process.exit(code));
} else {
  process.stderr.write(
    "usage: node dist/hook.js claude-code|pre-commit [--daemon|--no-daemon] [--files FILE...]\n",
  );
  process.exit(2);
}
