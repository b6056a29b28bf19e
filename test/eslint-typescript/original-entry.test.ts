/**
 * Issue 30: the drop-in as the original's users configure it. `eslint-typescript-mcp` (dist/eslint-typescript-mcp.js)
 * is started exactly as the original's README says (`node .../dist/<entry>.js`, no flags, the project as its
 * working directory, ESLINT_MCP_ALLOW_DIRS for more roots) and driven through the original's schemas; its
 * statuses and isError follow the original (captured side by side with eslint-typescript-mcp 1.2.0); a commit
 * the original wrote (test/fixtures/eslint-typescript/original-commit) is rolled back from its snapshot; a
 * listing over 500 files says so and keeps the full counts; no ESLint config is said in `note`.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { FIXTURES, REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { expectValid, NOTE, ORIGINAL, type Json } from "./drop-in.js";

const ENTRY = path.join(REPO_ROOT, "dist", "eslint-typescript-mcp.js");
const ORIGINAL_COMMIT = path.join(FIXTURES, "eslint-typescript", "original-commit");

interface Started {
  call(name: string, args?: Json): Promise<{ result: Json; isError: boolean }>;
  client: Client;
  close(): Promise<void>;
}

const started: Started[] = [];
afterAll(async () => {
  for (const s of started) await s.close();
});

/** The original's README entry with only the path changed: `{"command": "node", "args": [ENTRY]}`. */
async function startAsReadme(
  cwd: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<Started> {
  const state = tempDir("mcq-state-");
  const transport = new StdioClientTransport({
    command: "node",
    args: [ENTRY, ...args],
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: state, XDG_STATE_HOME: state, ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "seed-001-client", version: "1.0.0" });
  await client.connect(transport);
  const s: Started = {
    client,
    async call(name, a = {}) {
      const r = await client.callTool({ name, arguments: a }, undefined, { timeout: 300_000 });
      // Its clients read structuredContent (the outputSchema) or the text: the same JSON.
      const result = r.structuredContent as Json;
      expectValid(name, result);
      expect(JSON.parse((r.content as { text: string }[])[0]!.text)).toEqual(result);
      return { result, isError: r.isError === true };
    },
    close: () => client.close(),
  };
  started.push(s);
  return s;
}

/** The project the original was run on side by side: a prefer-const fix, an `any` left, a type error. */
function project(dir: string, config = true): string {
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "p", "private": true, "type": "module" }\n');
  fs.writeFileSync(
    path.join(dir, "tsconfig.json"),
    '{"compilerOptions":{"strict":true,"noEmit":true,"target":"es2022","module":"nodenext"},"include":["src"]}\n',
  );
  // The project's toolchain (ESLint, typescript-eslint, TypeScript), as in the side-by-side runs.
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"));
  if (config)
    fs.copyFileSync(
      path.join(ORIGINAL_COMMIT, "project", "eslint.config.js"),
      path.join(dir, "eslint.config.js"),
    );
  fs.writeFileSync(path.join(dir, "src", "a.ts"), "let total = 1;\nexport const a: any = total;\n");
  fs.writeFileSync(path.join(dir, "src", "b.ts"), "let n = 2;\nexport const b = n;\n");
  fs.writeFileSync(path.join(dir, "src", "c.ts"), 'export const c: number = "x";\n');
  return dir;
}

const statuses = (dir: string, r: Json) =>
  Object.fromEntries((r.files as Json[]).map((f) => [path.relative(dir, f.file as string), f.status]));

describe("eslint-typescript-mcp started as the original's README says", () => {
  it("speaks stdio, lists the original's six tools with its schemas, and honours ESLINT_MCP_ALLOW_DIRS", async () => {
    const dir = project(tempDir("mcq-readme-"));
    const other = project(tempDir("mcq-readme-other-"));
    const outside = project(tempDir("mcq-readme-outside-"));
    const s = await startAsReadme(dir, { ESLINT_MCP_ALLOW_DIRS: other });
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(ORIGINAL.map((t) => t.name).sort());
    for (const t of tools) {
      const original = ORIGINAL.find((o) => o.name === t.name)!;
      expect(Object.keys(t.inputSchema.properties ?? {}).sort(), t.name).toEqual(
        Object.keys(original.inputSchema.properties).sort(),
      );
    }
    // No arguments: the server's working directory, src/ (as the original).
    const here = await s.call("lint");
    expect(here.result).toMatchObject({ tool: "lint", success: true, workingDirectory: dir });
    expect(statuses(dir, here.result)).toEqual({ "src/a.ts": "fixable", "src/b.ts": "fixable" });
    expect(here.result.note).toBe(NOTE);
    const there = await s.call("lint", { cwd: other });
    expect(there.result).toMatchObject({ success: true, workingDirectory: other });
    // Outside the allowed roots: an error result (isError, as the original throws it), nothing run.
    const refused = await s.call("lint", { cwd: outside });
    expect(refused.isError).toBe(true);
    expect(refused.result).toMatchObject({ success: false, files: [] });
    expect(refused.result.error).toMatch(/outside the allowed paths/);
  });

  it("statuses and isError as the original gives them: lint_fix, typecheck", async () => {
    const dir = project(tempDir("mcq-statuses-"));
    const s = await startAsReadme(dir);
    const fixed = await s.call("lint_fix");
    // Captured from the original on this project: a.ts (fixed, an `any` left: no fix for it) unfixable.
    expect(statuses(dir, fixed.result)).toEqual({ "src/a.ts": "unfixable", "src/b.ts": "fixed" });
    expect(fixed.isError).toBe(false);
    expect(fixed.result.summary).toMatchObject({ totalErrors: 1, fixedFiles: 2, dryRun: false });
    // Type errors: success false, as the original, and no isError (it returned, it did not throw).
    const types = await s.call("typecheck");
    expect(types.result).toMatchObject({ success: false, summary: { totalErrors: 1 } });
    expect(statuses(dir, types.result)).toEqual({ "src/c.ts": "unfixable" });
    expect(types.isError).toBe(false);
  });

  it("without an ESLint config the result says the bundled default was used (the original fails there)", async () => {
    const dir = project(tempDir("mcq-noconfig-"), false);
    const s = await startAsReadme(dir);
    const r = await s.call("lint");
    expect(r.result.success).toBe(true);
    expect(r.result.note).toMatch(
      /No eslint\.config\.\* in .*: used the bundled default config .*; the original server fails without the project's config\./,
    );
  });

  it("1,015 files with problems: 500 listed under a large budget, fewer under a 16 KiB cap, saying so, counts full", async () => {
    const dir = tempDir("mcq-1015-");
    fs.mkdirSync(path.join(dir, "src"));
    fs.writeFileSync(
      path.join(dir, "package.json"),
      '{ "name": "many", "private": true, "type": "module" }\n',
    );
    fs.writeFileSync(
      path.join(dir, "eslint.config.js"),
      'export default [{ rules: { "prefer-const": "error" } }];\n',
    );
    for (let i = 0; i < 1015; i++)
      fs.writeFileSync(
        path.join(dir, "src", `f${String(i).padStart(4, "0")}.js`),
        `let v = ${i};\nexport { v };\n`,
      );
    // The default budget (8,000 tokens) is pinned in test/budget/drop-in-budgets.test.ts.
    const s = await startAsReadme(dir, {}, ["--max-result-tokens", "250000"]);
    const r = (await s.call("lint")).result;
    expect(r.files).toHaveLength(500);
    expect(r.summary).toMatchObject({ totalFiles: 1015, totalErrors: 1015 });
    expect(r.note).toBe(
      `${NOTE} Files lists 500 of 1015 files (at most 500, and the result within --max-result-bytes 1048576 ` +
        "and --max-result-tokens 250000); summary counts every file; pass files to see the others.",
    );
    const small = await startAsReadme(dir, {}, ["--max-result-bytes", "16384"]);
    const capped = (await small.call("lint")).result;
    const n = (capped.files as unknown[]).length;
    expect(n).toBeGreaterThan(10);
    expect(n).toBeLessThan(500);
    expect(Buffer.byteLength(JSON.stringify(capped))).toBeLessThanOrEqual(16384);
    expect(capped.summary).toMatchObject({ totalFiles: 1015, totalErrors: 1015 });
    expect(capped.note).toContain(`Files lists ${n} of 1015 files`);
  });
});

describe("rollback of a commit the original wrote", () => {
  /** The captured project and .mcp-cache in a temp dir, paths rewritten, mtimes before the lock's release. */
  function originalCommit(): { dir: string; snapshot: string } {
    const dir = tempDir("mcq-orig-commit-");
    fs.cpSync(path.join(ORIGINAL_COMMIT, "project"), dir, { recursive: true });
    fs.cpSync(path.join(ORIGINAL_COMMIT, "mcp-cache"), path.join(dir, ".mcp-cache"), { recursive: true });
    const rewrite = (file: string) =>
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replaceAll("/work/ext/sbs/o1", dir));
    rewrite(path.join(dir, ".mcp-cache", "audit.jsonl"));
    const snapshots = path.join(dir, ".mcp-cache", "snapshots");
    const snapshot = path.join(snapshots, fs.readdirSync(snapshots)[0]!);
    rewrite(path.join(snapshot, "manifest.json"));
    const line = JSON.parse(fs.readFileSync(path.join(dir, ".mcp-cache", "audit.jsonl"), "utf8")) as Json;
    const released = new Date(Date.parse(line.lockReleasedAt as string) - 100);
    for (const f of ["a.ts", "b.ts", "c.ts"]) fs.utimesSync(path.join(dir, "src", f), released, released);
    return { dir, snapshot };
  }

  it("restores from its snapshotRef, the file it changed but did not list as written included", async () => {
    const { dir } = originalCommit();
    const s = await startAsReadme(dir);
    const r = await s.call("rollback");
    expect(r.result).toMatchObject({ success: true, summary: { fixedFiles: 2 } });
    expect(statuses(dir, r.result)).toEqual({
      "src/a.ts": "fixed",
      "src/b.ts": "fixed",
      "src/c.ts": "clean",
    });
    expect(fs.readFileSync(path.join(dir, "src", "a.ts"), "utf8")).toBe(
      "let total = 1;\nexport const a: any = total;\n",
    );
    expect(fs.readFileSync(path.join(dir, "src", "b.ts"), "utf8")).toBe("let n = 2;\nexport const b = n;\n");
    expect(r.result.note).toMatch(/Rolled back 1796165729389-15102-b1cab2d5 \(lint_fix, /);
    // Undone: nothing is left to roll back.
    const again = await s.call("rollback");
    expect(again.result).toMatchObject({ success: true, files: [] });
  });

  it("a rollback that restores nothing is no success", async () => {
    const { dir, snapshot } = originalCommit();
    fs.rmSync(snapshot, { recursive: true });
    const s = await startAsReadme(dir);
    const before = fs.readFileSync(path.join(dir, "src", "b.ts"), "utf8");
    const r = await s.call("rollback");
    expect(r.result.success).toBe(false);
    expect(r.result.error).toMatch(
      /^nothing was restored of 1796165729389-15102-b1cab2d5: 2 file\(s\) have no snapshot/,
    );
    expect(r.result.note).not.toMatch(/Rolled back/);
    expect(fs.readFileSync(path.join(dir, "src", "b.ts"), "utf8")).toBe(before);
    // Not recorded as rolled back: once the snapshot is back, the commit can still be undone.
    fs.cpSync(
      path.join(ORIGINAL_COMMIT, "mcp-cache", "snapshots"),
      path.join(dir, ".mcp-cache", "snapshots"),
      {
        recursive: true,
      },
    );
    const manifest = path.join(snapshot, "manifest.json");
    fs.writeFileSync(manifest, fs.readFileSync(manifest, "utf8").replaceAll("/work/ext/sbs/o1", dir));
    const retry = await s.call("rollback");
    expect(retry.result).toMatchObject({ success: true, summary: { fixedFiles: 2 } });
  });
});
