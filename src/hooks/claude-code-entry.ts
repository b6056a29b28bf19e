#!/usr/bin/env node
/**
 * The Claude Code hook's installed entry, bundled by `npm run build` into one file (dist/bundle/hook.js,
 * scripts/bundle-hook.mjs): a decision then loads one file instead of ~60 modules, most of its start-up
 * cost. Claude Code only; the pre-commit hook stays on dist/hook.js.
 */
import v8 from "node:v8";
import { runClaudeCodeHook } from "./claude-code.js";
import { guardRegexpBacktracking } from "../regexp-guard.js";

// A hook process ends as soon as it has answered: V8 need not optimise the shell parser's WebAssembly.
v8.setFlagsFromString("--liftoff-only");
guardRegexpBacktracking();

if (process.argv[2] === "claude-code") void runClaudeCodeHook();
else {
  process.stderr.write("usage: node dist/bundle/hook.js claude-code\n");
  process.exit(2);
}
