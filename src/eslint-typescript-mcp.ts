#!/usr/bin/env node
/**
 * `eslint-typescript-mcp`: the drop-in for the original ESLint & TypeScript MCP server (seed 001), started as
 * its README says, with no flags: MCP over stdio, its six tools (`--toolsets eslint-typescript`), the server's
 * working directory allowed, and its environment variables (ESLINT_MCP_ALLOW_DIRS, ESLINT_MCP_LOG_LEVEL,
 * ESLINT_MCP_SNAPSHOT_MAX_BYTES, ESLINT_MCP_AUDIT_MAX_BYTES). Flags given after these still apply.
 */
import { start } from "./start.js";

await start(
  ["--mode", "stdio", "--toolsets", "eslint-typescript", ...process.argv.slice(2)],
  import.meta.url,
);
