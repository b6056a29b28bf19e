// Warm ESLint and TypeScript workers against `npx eslint FILE` and `npx tsc --noEmit`, on a generated
// project of 200 TypeScript files with typescript-eslint's recommended config. Both sides use the same
// ESLint and TypeScript (the project's node_modules is a link to this repository's).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { median, ms } from "./stats.mjs";

/** A tool result's JSON: its text content (structuredContent only comes with an outputSchema). */
const resultJson = (r) => r.structuredContent ?? JSON.parse(r.content[0].text);

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FILES = 200;
const RUNS = Number(process.env.JS_BENCH_RUNS ?? 20);
const CLI_TSC_RUNS = Number(process.env.JS_BENCH_TSC_RUNS ?? 10);

export function moduleSource(i, variant = 0, exportVariant = 0) {
  const prev = i > 0 ? `import { compute${i - 1}, type Shape${i - 1} } from "./m${i - 1}";\n` : "";
  const use = i > 0 ? `compute${i - 1}(n)` : "n";
  const extra = exportVariant ? `  tag${exportVariant}: string;\n` : "";
  const extraInit = exportVariant ? `, tag${exportVariant}: "t"` : "";
  return `${prev}
export interface Shape${i} {
  id: number;
  name: string;
  tags: string[];
${extra}}

export function make${i}(id: number): Shape${i} {
  return { id, name: "item-${i}-" + id, tags: ["a", "b"]${extraInit} };
}

export function compute${i}(n: number): number {
  let total = 0;
  for (let k = 0; k < n; k++) total += k * ${i + 1 + variant};
  return total + ${use};
}

export function describe${i}(s: Shape${i}): string {
  const parts: string[] = s.tags.map((t) => t.toUpperCase());
  return \`\${s.name}:\${parts.join(",")}\`;
}

export const registry${i}: Map<number, Shape${i}> = new Map();
${i > 0 ? `export type Pair${i} = [Shape${i}, Shape${i - 1}];\n` : ""}
// a finding for the linter
export const loose${i}: any = null;
`;
}

export function generateProject() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-js-bench-")));
  fs.mkdirSync(path.join(dir, "src"));
  for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(dir, "src", `m${i}.ts`), moduleSource(i));
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "bench-project", private: true, type: "module" }),
  );
  fs.writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "Bundler",
        skipLibCheck: true,
        noEmit: true,
      },
      include: ["src"],
    }),
  );
  fs.writeFileSync(
    path.join(dir, "eslint.config.mjs"),
    'import tseslint from "typescript-eslint";\nexport default tseslint.config(...tseslint.configs.recommended);\n',
  );
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}

async function connect(dir) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.join(REPO, "dist", "cli.js"),
      "--mode",
      "stdio",
      "--log-level",
      "warn",
      "--allowed-paths",
      dir,
      "--rate-limit",
      "false",
      "--audit-log",
      path.join(dir, ".audit.log"),
    ],
    cwd: dir,
    stderr: "pipe",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return {
    async call(name, args) {
      const t = performance.now();
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
      const elapsed = performance.now() - t;
      const result = resultJson(r);
      if (!result?.success) throw new Error(`${name} failed: ${JSON.stringify(result)}`);
      return { elapsed, result };
    },
    close: () => client.close(),
  };
}

function timeSpawn(cmd, args, cwd) {
  const t = performance.now();
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  const elapsed = performance.now() - t;
  if (r.error) throw r.error;
  return { elapsed, stdout: r.stdout, status: r.status };
}

export default async function run() {
  const dir = generateProject();
  const target = "src/m100.ts";
  const targetAbs = path.join(dir, target);
  const rows = [];
  const notes = [];
  try {
    const server = await connect(dir);
    try {
      // Cold first calls: starting the worker and loading ESLint + plugins / TypeScript + the program.
      const coldLint = await server.call("lint", { path: ".", linter: "eslint", files: [target] });
      const coldTsc = await server.call("type_check", { path: "." });
      notes.push(...coldLint.result.notes.slice(0, 1), ...coldTsc.result.notes.slice(0, 1));
      const lintIssues = coldLint.result.issue_count;
      const tscIssues = coldTsc.result.issue_count;

      // Warm lint of one file vs npx eslint FILE, interleaved so load affects both alike.
      const warmLint = [];
      const npxLint = [];
      for (let i = 0; i < RUNS; i++) {
        const w = await server.call("lint", { path: ".", linter: "eslint", files: [target] });
        if (w.result.issue_count !== lintIssues) throw new Error("warm lint disagrees with the cold one");
        warmLint.push(w.elapsed);
        const n = timeSpawn("npx", ["--no-install", "eslint", "--format", "json", target], dir);
        const npxCount = JSON.parse(n.stdout).reduce((k, f) => k + f.messages.length, 0);
        if (npxCount !== lintIssues)
          throw new Error(`npx eslint found ${npxCount}, the server ${lintIssues}`);
        npxLint.push(n.elapsed);
      }

      // Warm type_check after a body-only edit (alternating two bodies) vs npx tsc --noEmit.
      const warmBody = [];
      for (let i = 0; i < RUNS; i++) {
        fs.writeFileSync(targetAbs, moduleSource(100, (i % 2) + 1));
        const w = await server.call("type_check", { path: "." });
        if (w.result.issue_count !== tscIssues)
          throw new Error("warm type_check disagrees with the cold one");
        warmBody.push(w.elapsed);
      }
      const npxTsc = [];
      for (let i = 0; i < CLI_TSC_RUNS; i++) {
        fs.writeFileSync(targetAbs, moduleSource(100, (i % 2) + 1));
        npxTsc.push(
          timeSpawn("npx", ["--no-install", "tsc", "--noEmit", "-p", "tsconfig.json"], dir).elapsed,
        );
      }

      // Warm type_check after an edit that changes an exported type (dependents are re-checked).
      const warmExport = [];
      for (let i = 0; i < RUNS; i++) {
        fs.writeFileSync(targetAbs, moduleSource(100, 1, (i % 2) + 1));
        warmExport.push((await server.call("type_check", { path: "." })).elapsed);
      }

      const lintSpeedup = median(npxLint) / median(warmLint);
      const bodySpeedup = median(npxTsc) / median(warmBody);
      const exportSpeedup = median(npxTsc) / median(warmExport);
      rows.push(
        { case: "lint 1 file: cold first call (server)", runs: 1, median_ms: ms(coldLint.elapsed) },
        { case: "lint 1 file: warm worker", runs: RUNS, median_ms: ms(median(warmLint)) },
        {
          case: "lint 1 file: npx eslint FILE",
          runs: RUNS,
          median_ms: ms(median(npxLint)),
          warm_speedup: `${lintSpeedup.toFixed(1)}x`,
        },
        { case: "type_check: cold first call (server)", runs: 1, median_ms: ms(coldTsc.elapsed) },
        { case: "type_check: warm, after body-only edit", runs: RUNS, median_ms: ms(median(warmBody)) },
        {
          case: "type_check: warm, after export-changing edit",
          runs: RUNS,
          median_ms: ms(median(warmExport)),
          warm_speedup: `${exportSpeedup.toFixed(1)}x`,
        },
        {
          case: "npx tsc --noEmit (after body-only edit)",
          runs: CLI_TSC_RUNS,
          median_ms: ms(median(npxTsc)),
          warm_speedup: `${bodySpeedup.toFixed(1)}x (body-only)`,
        },
      );
      notes.push(
        `${FILES} generated .ts files, typescript-eslint recommended; lint of ${target} finds ${lintIssues} problems, tsc ${tscIssues}`,
        "times are end to end through the MCP client over stdio (JSON-RPC included)",
      );
    } finally {
      await server.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { title: "JavaScript/TypeScript: warm workers vs npx", rows, notes };
}
