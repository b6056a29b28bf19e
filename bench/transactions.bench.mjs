// What a transaction (lock, snapshot, journal, tree fingerprint, audit) adds to a lint_fix, through the real
// server over stdio with the ruff CLI: the same fix as a dry run (no transaction) and as a real run.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { median, ms } from "./stats.mjs";

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

async function connect(dir) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.join(repo, "dist", "cli.js"),
      "--mode",
      "stdio",
      "--log-level",
      "error",
      "--allowed-paths",
      dir,
    ],
    cwd: dir,
    env: { ...process.env, PATH: `${venvBin}:/usr/bin:/bin` },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return {
    call: async (name, args) => (await client.callTool({ name, arguments: args })).structuredContent,
    close: () => client.close(),
  };
}

export default async function run() {
  if (!fs.existsSync(path.join(venvBin, "ruff")))
    return { title: "transactions", rows: [], notes: ["skipped: run scripts/install-tools.sh first"] };
  const rows = [];
  for (const modules of [10, 200]) {
    const dir = makeProject(modules);
    const pristine = makeProject(modules);
    const s = await connect(dir);
    const reps = 7;
    const dry = [];
    const real = [];
    const noop = [];
    await s.call("lint_fix", { path: ".", dry_run: true }); // warm-up
    for (let i = 0; i < reps; i++) {
      let t = performance.now();
      await s.call("lint_fix", { path: ".", dry_run: true });
      dry.push(performance.now() - t);
      t = performance.now();
      const r = await s.call("lint_fix", { path: "." });
      real.push(performance.now() - t);
      if (r.transaction?.files_written.length !== modules) throw new Error(JSON.stringify(r).slice(0, 500));
      t = performance.now();
      await s.call("lint_fix", { path: "." });
      noop.push(performance.now() - t);
      fs.cpSync(path.join(pristine, "pkg"), path.join(dir, "pkg"), { recursive: true });
    }
    await s.close();
    rows.push({
      files: modules,
      "dry run (no transaction) ms": ms(median(dry)),
      "fix, writes every file ms": ms(median(real)),
      "fix, nothing to write ms": ms(median(noop)),
    });
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(pristine, { recursive: true, force: true });
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
