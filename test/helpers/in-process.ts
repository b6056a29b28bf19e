/**
 * The server in this process, reached by the SDK's Client over an in-memory transport: the real MCP
 * protocol and the real engine, tools and adapters, with services (the policy advisor) registered first.
 */
import { resultOf } from "./server.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { loadConfig } from "../../src/config.js";
import { Engine } from "../../src/engine/engine.js";
import { silentLogger } from "../../src/log.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { toolsFor } from "../../src/mcp/tools/index.js";

export interface InProcess {
  client: Client;
  engine: Engine;
  call(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function connectInProcess(options: {
  args?: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  services?: Record<string, object>;
}): Promise<InProcess> {
  const audit = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-audit-")), "audit.log");
  // The sandbox mode CI runs the suite under (MCP_CODE_QUALITY_SANDBOX=required) reaches in-process servers too.
  const sandboxEnv = process.env.MCP_CODE_QUALITY_SANDBOX
    ? { MCP_CODE_QUALITY_SANDBOX: process.env.MCP_CODE_QUALITY_SANDBOX }
    : {};
  const config = loadConfig(
    [...(options.args ?? []), "--audit-log", audit],
    { ...sandboxEnv, ...options.env },
    options.cwd,
  );
  const engine = new Engine(
    config,
    silentLogger,
    toolsFor(config.toolsets, { retainTraces: config.retainTraces }),
  );
  for (const [key, service] of Object.entries(options.services ?? {}))
    engine.services.get(key, () => service);
  const mcp = createMcpServer(engine);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    client,
    engine,
    async call(name, args = {}) {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
      return resultOf(r);
    },
    async close() {
      await client.close();
      await mcp.close();
      await engine.close();
    },
  };
}
