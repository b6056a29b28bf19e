#!/usr/bin/env node
/** `mcp-code-quality`: the server (HTTP by default, `--mode stdio` for MCP clients), `check`, `policy`, `hook`. */
import { start } from "./start.js";

await start(process.argv.slice(2), import.meta.url);
