// What a transaction (lock, snapshot, journal, tree fingerprint, audit) adds to a lint_fix, through the real
// server over stdio with the ruff CLI: the same fix as a dry run (no transaction) and as a real run.
// BENCH_BASELINE_CLI=<another build's dist/cli.js> runs that build too, interleaved rep by rep in the same run,
// to compare transaction costs before and after a change.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { median, ms } from "./stats.mjs";

/** A tool result's JSON: its text content (structuredContent only comes with an outputSchema). */
const resultJson = (r) => r.structuredContent ?? JSON.parse(r.content[0].text);

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const fixture = path.join(repo, "test", "fixtures", "python", "fix-project");
const venvBin = path.join(repo, ".tools", "venv", "bin");

/** A project with `modules` copies of the fixture's m1.py (each with 3 fixable problems). */
function makeProject(modules) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-tx-")));
  fs.copyFileSync(path.join(fixture, "pyproject.toml"), path.join(dir, "pyproject.toml"));
  fs.mkdirSync(path.join(dir, "pkg"));
  const source = fs.readFileSync(path.join(fixture, "pkg", "m1.py"));
  for (let i = 0; i < modules; i++) fs.writeFileSync(path.join(dir, "pkg", `m${i}.py`), source);
  return dir;
}

async function connect(dir, cli) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, "--mode", "stdio", "--log-level", "error", "--allowed-paths", dir],
    cwd: dir,
    env: { ...process.env, PATH: `${venvBin}:/usr/bin:/bin` },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return {
    call: async (name, args) => resultJson(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

export default async function run() {
  if (!fs.existsSync(path.join(venvBin, "ruff")))
    return { title: "transactions", rows: [], notes: ["skipped: run scripts/install-tools.sh first"] };
  const builds = [["this build", path.join(repo, "dist", "cli.js")]];
  if (process.env.BENCH_BASELINE_CLI)
    builds.unshift(["baseline", path.resolve(process.env.BENCH_BASELINE_CLI)]);
  const rows = [];
  for (const modules of [10, 200]) {
    const runs = [];
    for (const [name, cli] of builds) {
      const dir = makeProject(modules);
      const s = await connect(dir, cli);
      await s.call("lint_fix", { path: ".", dry_run: true }); // warm-up
      runs.push({ name, dir, pristine: makeProject(modules), s, dry: [], real: [], noop: [] });
    }
    const reps = 7;
    for (let i = 0; i < reps; i++)
      for (const run of runs) {
        const { s, dir, pristine } = run;
        let t = performance.now();
        await s.call("lint_fix", { path: ".", dry_run: true });
        run.dry.push(performance.now() - t);
        t = performance.now();
        const r = await s.call("lint_fix", { path: "." });
        run.real.push(performance.now() - t);
        if (r.transaction?.files_written.length !== modules) throw new Error(JSON.stringify(r).slice(0, 500));
        t = performance.now();
        await s.call("lint_fix", { path: "." });
        run.noop.push(performance.now() - t);
        fs.cpSync(path.join(pristine, "pkg"), path.join(dir, "pkg"), { recursive: true });
      }
    for (const run of runs) {
      await run.s.close();
      rows.push({
        build: run.name,
        files: modules,
        "dry run (no transaction) ms": ms(median(run.dry)),
        "fix, writes every file ms": ms(median(run.real)),
        "fix, nothing to write ms": ms(median(run.noop)),
      });
      fs.rmSync(run.dir, { recursive: true, force: true });
      fs.rmSync(run.pristine, { recursive: true, force: true });
    }
  }
  return {
    title: "lint_fix (ruff CLI) with and without its transaction, median of 7",
    rows,
    notes: [
      "a dry run runs ruff twice (--diff and a report) and takes no lock; a real run runs ruff once inside the transaction",
      "the transaction part is: lock, snapshot copy + manifest, journal (fsync), two tree fingerprints, hashing, audit",
    ],
  };
}
