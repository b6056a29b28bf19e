// The yardstick for start-up: a bare MCP SDK server over stdio with no tools of its own.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } });
await server.connect(new StdioServerTransport());
