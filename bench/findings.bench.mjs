// The findings layer's cost. (1) lint over stdio of the 160-line Python file (embedded ruff) and of one
// ESLint file (bundled ESLint), this build against an earlier build given as MCQ_BEFORE_DIST (a dist/
// directory), calls interleaved so load affects both alike. (2) 5,000 findings to SARIF: time and bytes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { median, ms, timeIt } from "./stats.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const N = 50;
const WARMUP = 150;

function project() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-findings-")));
  fs.writeFileSync(
    path.join(dir, "app.py"),
    "import os\nimport sys\n\n\ndef main(argv):\n    x = [1,2,\n 3]\n    return sys.argv\n".repeat(20),
  );
  fs.writeFileSync(
    path.join(dir, "package.json"),
    '{ "name": "bench", "private": true, "type": "module" }\n',
  );
  fs.writeFileSync(
    path.join(dir, "eslint.config.js"),
    'export default [{ files: ["**/*.js"], rules: { "prefer-const": "error", "no-unused-vars": "warn", eqeqeq: "error" } }];\n',
  );
  fs.mkdirSync(path.join(dir, "src"));
  fs.writeFileSync(
    path.join(dir, "src", "app.js"),
    "let a = 1;\nlet unused = 2;\nexport function f(x) {\n  if (x == a) return 1;\n  return 0;\n}\n".repeat(
      10,
    ),
  );
  return dir;
}

async function server(dist, dir) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.join(dist, "cli.js"),
      "--mode",
      "stdio",
      "--allowed-paths",
      dir,
      "--rate-limit",
      "false",
      "--log-level",
      "error",
      "--audit-log",
      path.join(dir, `.audit-${path.basename(path.dirname(dist))}.log`),
    ],
    cwd: dir,
    env: { ...process.env, PATH: "/usr/bin:/bin", VIRTUAL_ENV: "" },
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return client;
}

/** Alternates calls to the two servers; returns each one's durations. */
async function sideBySide(before, after, args, warmup) {
  const call = (c) => c.callTool({ name: "lint", arguments: args });
  for (let i = 0; i < warmup; i++) {
    await call(before);
    await call(after);
  }
  const a = [];
  const b = [];
  for (let i = 0; i < N; i++) {
    let t = performance.now();
    await call(before);
    a.push(performance.now() - t);
    t = performance.now();
    await call(after);
    b.push(performance.now() - t);
  }
  return [a, b];
}

async function sarifCase() {
  const { findingsView } = await import(pathToFileURL(path.join(root, "dist/findings/views.js")).href);
  const { displayPaths } = await import(pathToFileURL(path.join(root, "dist/findings/display-path.js")).href);
  const { sarifLog } = await import(pathToFileURL(path.join(root, "dist/findings/sarif.js")).href);
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-sarif-")));
  fs.writeFileSync(path.join(dir, "pyproject.toml"), "");
  const files = Array.from({ length: 50 }, (_, i) => path.join(dir, `m${i}.py`));
  for (const f of files)
    fs.writeFileSync(f, Array.from({ length: 100 }, (_, j) => `import module_${j}\n`).join(""));
  const make = () =>
    files.flatMap((file) =>
      Array.from({ length: 100 }, (_, j) => ({
        tool: "ruff",
        file,
        line: j + 1,
        column: 8,
        end_line: j + 1,
        end_column: 15 + String(j).length,
        rule_id: "F401",
        severity: "error",
        message: `\`module_${j}\` imported but unused`,
        correctable: true,
        correction: {
          safe: true,
          description: `Remove unused import: \`module_${j}\``,
          edits: [{ line: j + 1, column: 1, end_line: j + 2, end_column: 1, text: "" }],
        },
        docs_url: "https://docs.astral.sh/ruff/rules/unused-import",
      })),
    );
  const display = displayPaths(dir, [dir]);
  let bytes = 0;
  const times = await timeIt(
    () => {
      const view = findingsView(make(), { display, fingerprints: true });
      const json = JSON.stringify(
        sarifLog([
          {
            tool: "ruff",
            version: "0.17.6",
            informationUri: "https://docs.astral.sh/ruff/",
            findings: view.all,
            root: dir,
            executionSuccessful: true,
          },
        ]),
      );
      bytes = Buffer.byteLength(json);
    },
    20,
    3,
  );
  return { median: median(times), bytes };
}

export default async function run() {
  const rows = [];
  const notes = [];
  const dir = project();
  const beforeDist = process.env.MCQ_BEFORE_DIST;
  const after = await server(path.join(root, "dist"), dir);
  const before = beforeDist ? await server(beforeDist, dir) : undefined;
  const cases = [
    ["lint app.py (160 lines), embedded ruff, over stdio", { path: path.join(dir, "app.py") }, WARMUP],
    [
      "lint src/app.js (60 lines), bundled ESLint, over stdio",
      { path: dir, linter: "eslint", files: ["src/app.js"] },
      30,
    ],
  ];
  for (const [name, args, warmup] of cases) {
    if (before) {
      const [a, b] = await sideBySide(before, after, args, warmup);
      rows.push({
        case: name,
        before_ms: ms(median(a)),
        after_ms: ms(median(b)),
        ratio: ms(median(b) / median(a)),
        n: N,
      });
    } else {
      const t = await timeIt(() => after.callTool({ name: "lint", arguments: args }), N, warmup);
      rows.push({ case: name, after_ms: ms(median(t)), n: N });
    }
  }
  await after.close();
  await before?.close();
  if (!beforeDist) notes.push("set MCQ_BEFORE_DIST to an earlier build's dist/ for the side-by-side columns");
  const s = await sarifCase();
  rows.push({
    case: "5,000 findings → view with fingerprints → SARIF JSON",
    after_ms: ms(s.median),
    bytes: s.bytes,
    n: 20,
  });
  notes.push(`SARIF of 5,000 findings: ${s.bytes} bytes (${Math.round(s.bytes / 5000)} bytes per result)`);
  return { title: "Findings: shaping cost and SARIF", rows, notes };
}
