/**
 * tools/list costs context before any tool is called, and it is all an agent knows of the arguments: the
 * default toolsets' definitions together stay within 6,000 tokens (characters / 4 of the JSON the server
 * sends), and every argument of every toolset has a description.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { connectStdio, type Connected } from "../helpers/server.js";

const TOOLS_LIST_TOKEN_BUDGET = 6000;

/** `tool.argument` for every top-level input property without a description. */
function undescribed(tools: Tool[]): string[] {
  return tools.flatMap((t) =>
    Object.entries(t.inputSchema.properties ?? {})
      .filter(([, schema]) => typeof (schema as { description?: unknown }).description !== "string")
      .map(([name]) => `${t.name}.${name}`),
  );
}

const argumentCount = (tools: Tool[]) =>
  tools.reduce((n, t) => n + Object.keys(t.inputSchema.properties ?? {}).length, 0);

describe("the default tools/list", () => {
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio();
  });
  afterAll(async () => {
    await s?.close();
  });

  it(`costs at most ${TOOLS_LIST_TOKEN_BUDGET} tokens (chars / 4) and describes every argument`, async () => {
    const { tools } = await s.client.listTools();
    const tokens = Math.ceil(JSON.stringify(tools).length / 4);
    const perTool = tools.map((t) => `${t.name} ${Math.ceil(JSON.stringify(t).length / 4)}`).join(", ");
    console.log(
      `tools/list: ${tools.length} tools, ${argumentCount(tools)} arguments, ${tokens} tokens (${perTool})`,
    );
    expect(tools.length).toBeGreaterThan(20);
    expect(argumentCount(tools)).toBeGreaterThan(150);
    expect(undescribed(tools)).toEqual([]);
    expect(tokens, perTool).toBeLessThanOrEqual(TOOLS_LIST_TOKEN_BUDGET);
  });
});

describe("the drop-in toolsets' tools/list", () => {
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio({ args: ["--toolsets", "eslint-typescript,rubocop"] });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("describes every argument", async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["typecheck", "rubocop_inspection"]));
    expect(undescribed(tools)).toEqual([]);
  });
});
