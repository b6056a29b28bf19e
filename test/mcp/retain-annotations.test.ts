/**
 * `retain` writes a trace under .mcp-cache/lint-runs/, and annotations belong to the tool, not to the call:
 * by default a read-only tool (lint) stays read-only and takes no `retain`; with --retain-traces per-call it
 * takes `retain` and is listed as not read-only, with the persists_traces trait (issue 30, item 10).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { TRAITS_META_KEY } from "../../src/mcp/tool-traits.js";

function project(): string {
  const dir = tempDir("mcq-retain-");
  fs.writeFileSync(path.join(dir, "pyproject.toml"), "[project]\nname = 'p'\nversion = '0'\n");
  fs.writeFileSync(path.join(dir, "one.py"), "import os\n");
  return dir;
}

const servers: Connected[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function listing(s: Connected, name: string) {
  const { tools } = await s.client.listTools();
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`${name} is not listed`);
  return {
    annotations: tool.annotations,
    args: Object.keys(tool.inputSchema.properties ?? {}),
    traits: tool._meta?.[TRAITS_META_KEY],
  };
}

describe("retain and the annotations", () => {
  it("by default lint is read-only and has no retain; lint_fix (which writes anyway) has it", async () => {
    const dir = project();
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    servers.push(s);
    const lint = await listing(s, "lint");
    expect(lint.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(lint.args).not.toContain("retain");
    expect(lint.traits).toEqual(["reads_files", "runs_tools"]);
    const fix = await listing(s, "lint_fix");
    expect(fix.args).toContain("retain");
    expect(fix.traits).toContain("persists_traces");
    // Asked all the same, it is refused and nothing is written.
    await expect(s.call("lint", { path: dir, retain: true })).rejects.toThrow(/retain/);
    expect(fs.existsSync(path.join(dir, ".mcp-cache"))).toBe(false);
  });

  it("with --retain-traces per-call lint takes retain, is listed as writing, and the trace is written", async () => {
    const dir = project();
    const s = await connectStdio({ args: ["--allowed-paths", dir, "--retain-traces", "per-call"], cwd: dir });
    servers.push(s);
    const lint = await listing(s, "lint");
    expect(lint.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(lint.args).toContain("retain");
    expect(lint.traits).toEqual(["reads_files", "runs_tools", "persists_traces"]);
    const plain = await s.call("lint", { path: dir });
    expect(plain.trace_id).toBeUndefined();
    expect(fs.existsSync(path.join(dir, ".mcp-cache"))).toBe(false);
    const kept = await s.call("lint", { path: dir, retain: true });
    expect(kept.trace_file).toMatch(/^\.mcp-cache\/lint-runs\/.+\.json$/);
    expect(fs.existsSync(path.join(dir, kept.trace_file as string))).toBe(true);
  });
});
