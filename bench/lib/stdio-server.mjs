// The built server over stdio for a bench, through the MCP SDK's client: `node dist/cli.js --mode stdio`
// with the given flags, its stderr ignored. Returns the connected client (close() ends the server).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "dist", "cli.js");

export async function stdioServer(flags, { cwd, env }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "--mode", "stdio", ...flags],
    cwd,
    env,
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return client;
}

/**
 * Two warm servers on `dir` for a large-tree bench, each with the result cache on and its own cache folder
 * under `tmp`: `watched` with --tree-watch (the default), `statting` with --tree-watch false.
 */
export async function treeWatchPair(dir, tmp, PATH) {
  const server = (treeWatch) =>
    stdioServer(
      [
        "--allowed-paths",
        dir,
        "--rate-limit",
        "false",
        "--log-level",
        "error",
        "--result-cache",
        "true",
        "--tree-watch",
        String(treeWatch),
        "--audit-log",
        path.join(tmp, `audit-${treeWatch}.log`),
      ],
      { cwd: dir, env: { ...process.env, PATH, XDG_CACHE_HOME: path.join(tmp, String(treeWatch)) } },
    );
  return { watched: await server(true), statting: await server(false) };
}
