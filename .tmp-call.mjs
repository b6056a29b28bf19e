import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const [cwd, argsJson, ...flags] = process.argv.slice(2);
const t = new StdioClientTransport({ command: process.execPath, args: ["/work/wt-md/dist/cli.js", "--mode", "stdio", "--log-level", "warn", "--audit-log", "/tmp/md-audit.log", ...flags], cwd });
const c = new Client({ name: "x", version: "1" }); await c.connect(t);
const r = await c.callTool({ name: "check_markdown_links", arguments: JSON.parse(argsJson) });
console.log(JSON.stringify(r.structuredContent, null, 2)); await c.close();
