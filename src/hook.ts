#!/usr/bin/env node
/**
 * The hooks' own entry point (`node dist/hook.js claude-code|pre-commit`): it loads the hook and nothing of
 * the server (no MCP SDK, no zod, no config), so a Claude Code decision costs little more than Node's start.
 * `mcp-code-quality hook …` (cli.js) runs the same hooks.
 */
import v8 from "node:v8";

// A hook process ends as soon as it has answered: V8 need not optimise the shell parser's WebAssembly.
v8.setFlagsFromString("--liftoff-only");

const kind = process.argv[2];
if (kind === "claude-code") await (await import("./hooks/claude-code.js")).runClaudeCodeHook();
else if (kind === "pre-commit") {
  const code = await (await import("./hooks/pre-commit.js")).runPreCommitHook();
  process.stderr.write("", () => process.exit(code));
} else {
  process.stderr.write("usage: node dist/hook.js claude-code|pre-commit\n");
  process.exit(2);
}
