/**
 * tools/list costs context before any tool is called: the default toolsets' definitions together stay
 * within 5,000 tokens, estimated as characters / 4 of the JSON the server sends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";

const TOOLS_LIST_TOKEN_BUDGET = 5000;

describe("the default tools/list", () => {
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio();
  });
  afterAll(async () => {
    await s?.close();
  });

  it(`costs at most ${TOOLS_LIST_TOKEN_BUDGET} tokens (chars / 4)`, async () => {
    const { tools } = await s.client.listTools();
    const tokens = Math.ceil(JSON.stringify(tools).length / 4);
    const perTool = tools.map((t) => `${t.name} ${Math.ceil(JSON.stringify(t).length / 4)}`).join(", ");
    console.log(`tools/list: ${tools.length} tools, ${tokens} tokens (${perTool})`);
    expect(tools.length).toBeGreaterThan(0);
    expect(tokens, perTool).toBeLessThanOrEqual(TOOLS_LIST_TOKEN_BUDGET);
  });
});
