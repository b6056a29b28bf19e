#!/usr/bin/env node
/** `mcp-code-quality`: the server (HTTP by default, `--mode stdio` for MCP clients), `check`, `policy`, `hook`. */
import { fileURLToPath } from "node:url";
import { run } from "./main.js";

run(process.argv.slice(2), fileURLToPath(import.meta.url));
