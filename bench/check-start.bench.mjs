// `check` of a small project in a fresh process (issue 29: start-up before any tool runs), side by side,
// interleaved, against the baseline (lib/baseline.mjs) and `node -e 0`: a pyproject.toml and 3 files, the
// ruff CLI on PATH, a warm result cache (an untimed run first), so what is timed is mostly start-up.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { baseline } from "./lib/baseline.mjs";
import { median, ms } from "./stats.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = Number(process.env.CHECK_START_RUNS ?? 9);
const PATH = [path.join(repo, ".tools", "venv", "bin"), process.env.PATH].join(":");

function smallProject() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-start-"));
  fs.writeFileSync(path.join(root, "pyproject.toml"), '[project]\nname = "small"\nversion = "0"\n');
  fs.writeFileSync(path.join(root, "a.py"), "import os\n\n\ndef f(x):\n    return x\n");
  fs.writeFileSync(path.join(root, "b.py"), "def g():\n    return 1\n");
  fs.writeFileSync(path.join(root, "c.py"), "import sys\n\nprint(sys.argv)\n");
  return root;
}

export default async function run() {
  const project = smallProject();
  const base = baseline(repo);
  const sides = [
    ["node -e 0", ["-e", "0"]],
    ["check (this checkout)", [path.join(repo, "dist", "cli.js"), "check", project, "--json"]],
    ...(base ? [[`check (${base.ref} ${base.commit})`, [base.cli, "check", project, "--json"]]] : []),
  ];
  const env = { ...process.env, PATH };
  const times = new Map(sides.map(([name]) => [name, []]));
  // Started in the project, as `cd project && mcp-code-quality check .` would be.
  const opts = { env, cwd: project, encoding: "utf8" };
  for (const [, args] of sides) spawnSync(process.execPath, args, opts);
  for (let i = 0; i < RUNS; i++)
    for (const [name, args] of sides) {
      const t = performance.now();
      const r = spawnSync(process.execPath, args, opts);
      times.get(name).push(performance.now() - t);
      if (name !== "node -e 0" && r.status !== 1)
        throw new Error(`${name}: exit ${r.status}: ${r.stderr}${r.stdout.slice(0, 2000)}`);
    }
  fs.rmSync(project, { recursive: true, force: true });
  return {
    title: "check of a small Python project in a fresh process (ms, wall)",
    rows: sides.map(([name]) => ({ side: name, median: ms(median(times.get(name))), runs: RUNS })),
    notes: ["exit 1 expected (F401 in a.py); strace -f -e trace=openat counts the files it opens"],
  };
}
