// A warm whole-project lint of a large real tree after a one-file edit (issue 42): pylint-dev/pylint (2,419
// Python files) through a running server (stdio, the result cache on), against `ruff check` with ruff's own
// cache on the same edit, side by side, interleaved; each round edits one file anew (a comment line) and
// restores it at the end. A second server with --tree-watch false (a stat of every folder and file a call)
// answers the same edits. Projects: bench/lib/real-projects.mjs.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchProjects, loadAverage } from "./lib/real-projects.mjs";
import { treeWatchPair } from "./lib/stdio-server.mjs";
import { median, ms } from "./stats.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = Number(process.env.LARGE_TREE_RUNS ?? 7);
const PATH = [path.join(repo, ".tools", "venv", "bin"), process.env.PATH].join(":");
const EDITED = path.join("pylint", "checkers", "base_checker.py");

export default async function run() {
  const { pylint: dir } = benchProjects(["pylint"]);
  if (!dir)
    return { title: "warm lint of a large tree after a one-file edit", rows: [], notes: ["pylint missing"] };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-large-"));
  const { watched: client, statting } = await treeWatchPair(dir, tmp, PATH);
  const lint = async (through = client) => {
    const t = performance.now();
    const r = await through.callTool({ name: "lint", arguments: { path: dir, linter: "ruff" } }, undefined, {
      timeout: 600_000,
    });
    const result = JSON.parse(r.content[0].text);
    if (!result.success) throw new Error(`lint: ${r.content[0].text.slice(0, 500)}`);
    return { ms: performance.now() - t, findings: result.issue_count ?? result.summary?.total };
  };
  const ruff = () => {
    const t = performance.now();
    const r = spawnSync("ruff", ["check", "--no-fix", "--output-format", "json", "."], {
      cwd: dir,
      env: { ...process.env, PATH },
      maxBuffer: 1 << 28,
    });
    if (r.status !== 0 && r.status !== 1) throw new Error(`ruff: ${r.stderr}`);
    return { ms: performance.now() - t, findings: JSON.parse(r.stdout).length };
  };
  const file = path.join(dir, EDITED);
  const original = fs.readFileSync(file, "utf8");
  const times = { server: [], ruff: [], statting: [] };
  let findings;
  try {
    await lint();
    await lint(statting);
    ruff();
    for (let i = 0; i < RUNS; i++) {
      fs.writeFileSync(file, `${original}# bench edit ${i} ${Date.now()}\n`);
      const a = await lint();
      const b = ruff();
      const c = await lint(statting);
      times.server.push(a.ms);
      times.ruff.push(b.ms);
      times.statting.push(c.ms);
      findings = { server: a.findings, ruff: b.findings };
    }
  } finally {
    fs.writeFileSync(file, original);
    await client.close();
    await statting.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const s = median(times.server);
  const r = median(times.ruff);
  const st = median(times.statting);
  return {
    title: "warm lint of pylint (2,419 files) after a one-file edit (ms, wall, medians)",
    rows: [
      { side: "lint through the warm server (ruff)", median: ms(s), findings: findings.server },
      { side: "ruff check with its cache", median: ms(r), findings: findings.ruff },
      { side: "ruff ÷ server", median: (r / s).toFixed(2) },
      { side: "the server with --tree-watch false", median: ms(st) },
      { side: "ruff ÷ that server", median: (r / st).toFixed(2) },
    ],
    notes: [`load average ${loadAverage()}; ${RUNS} rounds, interleaved`],
  };
}
