// The ESLint half of issue 42's large-tree row: a warm whole-project lint of a real TypeScript monorepo after a
// one-file edit, vuejs/core (a pnpm workspace, ESLint 10, flat config, typescript-eslint's parser without type
// information), through a running server (stdio, the result cache on) asked `lint {path, linter: "eslint"}`,
// against the project's own `eslint --cache .` (its lint script) on the same edit, side by side, interleaved;
// a second server with --tree-watch false answers the same edits. Each round appends a comment line to one
// file anew; before the rounds, one edit that breaks two rules checks that both sides report the same
// findings; the file is restored at the end. Projects: bench/lib/real-projects.mjs.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BENCH_PROJECTS, benchProjects, loadAverage } from "./lib/real-projects.mjs";
import { treeWatchPair } from "./lib/stdio-server.mjs";
import { median, ms } from "./stats.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = Number(process.env.LARGE_TREE_RUNS ?? 7);
const PATH = [path.join(repo, ".tools", "venv", "bin"), process.env.PATH].join(":");
const NAME = "vue-core";
const EDITED = path.join("packages", "runtime-core", "src", "component.ts");
const TITLE = "warm lint of vuejs/core (525 files ESLint lints) after a one-file edit (ms, wall, medians)";

/** rule id -> count, from a list of { rule } or ESLint's JSON messages. */
const byRule = (rules) => {
  const counts = {};
  for (const r of rules) counts[r ?? "(none)"] = (counts[r ?? "(none)"] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort());
};

export default async function run() {
  const { [NAME]: dir } = benchProjects([NAME]);
  const eslintBin = dir && path.join(dir, "node_modules", ".bin", "eslint");
  if (dir && !fs.existsSync(eslintBin))
    console.error(`bench: lacks ${NAME}'s node_modules: (cd ${dir} && ${BENCH_PROJECTS[NAME].install})`);
  if (!dir || !fs.existsSync(eslintBin)) return { title: TITLE, rows: [], notes: [`${NAME} missing`] };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-large-eslint-"));
  const { watched: client, statting } = await treeWatchPair(dir, tmp, PATH);
  const lint = async (through = client) => {
    const t = performance.now();
    const r = await through.callTool(
      { name: "lint", arguments: { path: dir, linter: "eslint" } },
      undefined,
      {
        timeout: 600_000,
      },
    );
    const result = JSON.parse(r.content[0].text);
    if (!result.success && !Array.isArray(result.issues))
      throw new Error(`lint: ${r.content[0].text.slice(0, 500)}`);
    return {
      ms: performance.now() - t,
      findings: result.issue_count ?? result.summary?.total,
      files: result.summary?.totalFiles,
      cached: result.cached,
      inside: result.summary?.durationMs,
      worker: (result.notes ?? []).find((n) => /eslint worker pid/.test(n)),
      rules: byRule((result.files ?? []).flatMap((f) => f.messages.map((m) => m.rule_id || null))),
      where: (result.files ?? [])
        .flatMap((f) => f.messages.map((m) => `${f.file}:${m.line}:${m.column}:${m.rule_id}`))
        .sort(),
    };
  };
  // The project's own ESLint as its lint script runs it (`eslint --cache .`), JSON out to count the findings.
  const eslint = () => {
    const t = performance.now();
    const r = spawnSync(eslintBin, ["--cache", "--format", "json", "."], {
      cwd: dir,
      env: { ...process.env, PATH },
      maxBuffer: 1 << 28,
    });
    if (r.status !== 0 && r.status !== 1) throw new Error(`eslint: ${r.stderr}`);
    const results = JSON.parse(r.stdout);
    const messages = results.flatMap((f) => f.messages);
    return {
      ms: performance.now() - t,
      findings: messages.length,
      files: results.length,
      rules: byRule(messages.map((m) => m.ruleId)),
      where: results
        .flatMap((f) =>
          f.messages.map((m) => `${path.relative(dir, f.filePath)}:${m.line}:${m.column}:${m.ruleId}`),
        )
        .sort(),
    };
  };
  const file = path.join(dir, EDITED);
  const original = fs.readFileSync(file, "utf8");
  const times = { server: [], eslint: [], statting: [] };
  const cached = { server: [], statting: [] };
  let findings;
  let broken;
  try {
    await lint();
    await lint(statting);
    eslint();
    // One edit that breaks two of the project's rules (no-debugger, no-console): the same findings both sides.
    fs.writeFileSync(file, `${original}debugger\nconsole.log(1)\n`);
    broken = { server: await lint(), eslint: eslint(), statting: await lint(statting) };
    for (let i = 0; i < RUNS; i++) {
      fs.writeFileSync(file, `${original}// bench edit ${i} ${Date.now()}\n`);
      const a = await lint();
      const b = eslint();
      const c = await lint(statting);
      times.server.push(a.ms);
      times.eslint.push(b.ms);
      times.statting.push(c.ms);
      cached.server.push(`${a.cached} in ${a.inside} ms${a.worker ? ` (${a.worker})` : ""}`);
      cached.statting.push(`${c.cached} in ${c.inside} ms${c.worker ? ` (${c.worker})` : ""}`);
      findings = { server: a, eslint: b, statting: c };
    }
  } finally {
    fs.writeFileSync(file, original);
    await client.close();
    await statting.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const s = median(times.server);
  const e = median(times.eslint);
  const st = median(times.statting);
  const rules = (x) => JSON.stringify(x.rules);
  const same = (x) => JSON.stringify(x.where) === JSON.stringify(broken.eslint.where);
  return {
    title: TITLE,
    rows: [
      { side: "lint through the warm server (eslint)", median: ms(s), findings: findings.server.findings },
      { side: "eslint --cache . (the project's own)", median: ms(e), findings: findings.eslint.findings },
      { side: "eslint ÷ server", median: (e / s).toFixed(2) },
      { side: "the server with --tree-watch false", median: ms(st), findings: findings.statting.findings },
      { side: "eslint ÷ that server", median: (e / st).toFixed(2) },
    ],
    notes: [
      `load average ${loadAverage()}; ${RUNS} rounds, interleaved; ${NAME} at ${BENCH_PROJECTS[NAME].commit.slice(0, 12)}`,
      `files linted: server ${findings.server.files}, eslint ${findings.eslint.files}`,
      `the edit that breaks two rules: server ${broken.server.findings} ${rules(broken.server)}, ` +
        `eslint ${broken.eslint.findings} ${rules(broken.eslint)}, ` +
        `--tree-watch false ${broken.statting.findings} ${rules(broken.statting)}` +
        (same(broken.server) && same(broken.statting)
          ? " (the same files, lines, columns and rules)"
          : ` (DIFFER: ${JSON.stringify({ server: broken.server.where, eslint: broken.eslint.where })})`),
      `per round (server / eslint / --tree-watch false): ${times.server.map((t, i) => `${ms(t)}/${ms(times.eslint[i])}/${ms(times.statting[i])}`).join(", ")}`,
      `the result cache's answers and each call's own summary.durationMs (watched / --tree-watch false): ${cached.server.map((x, i) => `${x} / ${cached.statting[i]}`).join("; ")}`,
    ],
  };
}
