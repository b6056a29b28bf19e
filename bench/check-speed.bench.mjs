// `check` against the project's own commands run one after another (issue 29), on generated projects of
// realistic size (bench/lib/projects.mjs), side by side, interleaved:
// - cold: an empty result cache, against the commands with their own caches cleared (ruff's, RuboCop's;
//   plain `eslint .`); build caches (go, cargo) are warm on both sides (an untimed run first);
// - warm: the same `check` again (nothing changed), against the commands with their caches (ruff's,
//   RuboCop's, `eslint --cache`, go's and cargo's);
// and RuboCop through a warm server against its CLI: a whole project after a one-file edit (with and without
// RuboCop's cache), and one file of 2,173 lines after an edit.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  bigRubyFile,
  goProject,
  pythonProject,
  rubyProject,
  rustProject,
  typescriptProject,
} from "./lib/projects.mjs";
import { median, ms } from "./stats.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(repo, "dist", "cli.js");
const PATH = [
  path.join(repo, ".tools", "venv", "bin"),
  path.join(repo, ".tools", "go", "bin"),
  process.env.PATH,
].join(":");
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const node = (script) => [process.execPath, script];
const ESLINT = node(path.join(repo, "node_modules", "eslint", "bin", "eslint.js"));
const PRETTIER = node(path.join(repo, "node_modules", "prettier", "bin", "prettier.cjs"));
const TSC = node(path.join(repo, "node_modules", "typescript", "bin", "tsc"));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ");
const tmp = (p) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));

function have(program) {
  return spawnSync("sh", ["-c", `command -v ${program}`], { env: { ...process.env, PATH } }).status === 0;
}

function run(argv, cwd, env = {}) {
  const t = performance.now();
  const r = spawnSync(argv[0], argv.slice(1), {
    cwd,
    env: { ...process.env, PATH, ...env },
    maxBuffer: 1 << 30,
  });
  if (r.error) throw r.error;
  return { ms: performance.now() - t, status: r.status, out: `${r.stdout}${r.stderr}` };
}

const DAEMON = ["--daemon"];
const sequence = (commands, cwd, env) => commands.reduce((sum, c) => sum + run(c, cwd, env).ms, 0);

function check(dir, cacheDir, extra = []) {
  const r = run(
    [
      process.execPath,
      CLI,
      "check",
      ...extra,
      dir,
      "--result-cache",
      "true",
      "--result-cache-dir",
      cacheDir,
      "--audit-log",
      path.join(cacheDir, "..", "audit.log"),
      "--json",
    ],
    dir,
  );
  if (r.status === null || r.status > 1)
    throw new Error(`check ${dir} exited ${r.status}: ${r.out.slice(0, 2000)}`);
  return r.ms;
}

const PROJECTS = [
  {
    name: "Python (150 files: ruff format, ruff, ty)",
    needs: ["ruff", "ty"],
    make: () => pythonProject(),
    cold: [
      ["ruff", "format", "--check", "--no-cache", "."],
      ["ruff", "check", "--no-cache", "."],
      ["ty", "check", "."],
    ],
    warm: [
      ["ruff", "format", "--check", "."],
      ["ruff", "check", "."],
      ["ty", "check", "."],
    ],
  },
  {
    name: "TypeScript (150 files: prettier, eslint, tsc)",
    needs: [],
    make: () => typescriptProject(repo),
    cold: [
      [...PRETTIER, "--check", "."],
      [...ESLINT, "."],
      [...TSC, "--noEmit", "-p", "."],
    ],
    warm: [
      [...PRETTIER, "--check", "--cache", "."],
      [...ESLINT, "--cache", "."],
      [...TSC, "--noEmit", "-p", "."],
    ],
  },
  {
    name: "Go (41 files: gofmt, go vet, go build)",
    needs: ["go"],
    make: () => goProject(),
    cold: [
      ["gofmt", "-l", "."],
      ["go", "vet", "./..."],
      ["go", "build", "-o", "/dev/null", "./..."],
    ],
    warm: [
      ["gofmt", "-l", "."],
      ["go", "vet", "./..."],
      ["go", "build", "-o", "/dev/null", "./..."],
    ],
  },
  {
    name: "Rust (30 modules: cargo fmt, clippy, cargo check)",
    needs: ["cargo"],
    make: () => rustProject(),
    cold: [
      ["cargo", "fmt", "--check"],
      ["cargo", "clippy", "--quiet"],
      ["cargo", "check", "--quiet"],
    ],
    warm: [
      ["cargo", "fmt", "--check"],
      ["cargo", "clippy", "--quiet"],
      ["cargo", "check", "--quiet"],
    ],
  },
  {
    name: "Ruby (75 files: rubocop)",
    needs: ["rubocop"],
    make: () => rubyProject(),
    cold: [["rubocop", "--cache", "false"]],
    warm: [["rubocop"]],
  },
];

async function server(dir) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      CLI,
      "--mode",
      "stdio",
      "--allowed-paths",
      dir,
      "--rate-limit",
      "false",
      "--log-level",
      "error",
      "--result-cache",
      "true",
      "--audit-log",
      path.join(tmp("mcq-bench-audit-"), "a.log"),
    ],
    cwd: dir,
    env: { ...process.env, PATH, XDG_CACHE_HOME: tmp("mcq-bench-xdg-") },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return {
    lint: async (args) => {
      const t = performance.now();
      await client.callTool({ name: "lint", arguments: { linter: "rubocop", ...args } }, undefined, {
        timeout: 600_000,
      });
      return performance.now() - t;
    },
    close: () => client.close(),
  };
}

async function rubocopRows(rows) {
  const dir = rubyProject();
  const files = fs.readdirSync(path.join(dir, "lib", "bench")).map((f) => path.join(dir, "lib", "bench", f));
  const big = bigRubyFile(dir);
  const s = await server(dir);
  await s.lint({ path: dir });
  run(["rubocop", "--format", "json"], dir);
  const t = { server: [], cached: [], uncached: [], bigServer: [], bigCli: [], bigCliUncached: [] };
  for (let i = 0; i < RUNS * 2; i++) {
    const edit = () => fs.appendFileSync(files[i % files.length], `# edit ${Math.random()}\n`);
    edit();
    t.server.push(await s.lint({ path: dir }));
    edit();
    t.cached.push(run(["rubocop", "--format", "json"], dir).ms);
    t.uncached.push(run(["rubocop", "--format", "json", "--cache", "false"], dir).ms);
    fs.appendFileSync(big, `# edit ${Math.random()}\n`);
    t.bigServer.push(await s.lint({ path: big }));
    fs.appendFileSync(big, `# edit ${Math.random()}\n`);
    t.bigCli.push(run(["rubocop", "--format", "json", big], dir).ms);
    t.bigCliUncached.push(run(["rubocop", "--format", "json", "--cache", "false", big], dir).ms);
  }
  await s.close();
  const row = (label, server, direct, what) =>
    rows.push({
      case: label,
      "server/check median ms": ms(median(server)),
      "direct median ms": ms(median(direct)),
      direct: what,
      "direct / server": (median(direct) / median(server)).toFixed(2),
      runs: server.length,
    });
  row(
    "RuboCop whole project (75 files) after a one-file edit, warm server",
    t.server,
    t.cached,
    "rubocop (its cache)",
  );
  row(
    "RuboCop whole project (75 files) after a one-file edit, warm server",
    t.server,
    t.uncached,
    "rubocop --cache false",
  );
  row(
    "RuboCop one file of 2,173 lines after an edit, warm server",
    t.bigServer,
    t.bigCli,
    "rubocop FILE (its cache)",
  );
  row(
    "RuboCop one file of 2,173 lines after an edit, warm server",
    t.bigServer,
    t.bigCliUncached,
    "rubocop --cache false FILE",
  );
}

export default async function runBench() {
  const rows = [];
  const notes = [`load average at start ${load()} (2 cores, shared)`];
  // BENCH_PROJECTS=python,ruby (a name's first word, lower case) runs those alone; BENCH_RUBOCOP=false skips
  // the RuboCop rows.
  const only = process.env.BENCH_PROJECTS?.split(",");
  for (const p of PROJECTS.filter((x) => !only || only.includes(x.name.split(" ")[0].toLowerCase()))) {
    if (p.needs.some((n) => !have(n))) {
      rows.push({ case: p.name, direct: `${p.needs.join(", ")} not installed` });
      continue;
    }
    const dir = p.make();
    // Build caches (go, cargo) and the tools' installs warm on both sides before anything is timed.
    sequence(p.warm, dir);
    check(dir, tmp("mcq-bench-cache-"));
    // The daemon started (untimed), as a second `check --daemon` finds it.
    check(dir, tmp("mcq-bench-cache-"), DAEMON);
    const t = {
      checkCold: [],
      directCold: [],
      checkWarm: [],
      directWarm: [],
      daemonCold: [],
      daemonWarm: [],
    };
    for (let i = 0; i < RUNS; i++) {
      fs.rmSync(path.join(dir, ".ruff_cache"), { recursive: true, force: true });
      const cache = tmp("mcq-bench-cache-");
      const daemonCache = tmp("mcq-bench-cache-");
      t.checkCold.push(check(dir, cache));
      t.daemonCold.push(check(dir, daemonCache, DAEMON));
      t.directCold.push(sequence(p.cold, dir));
      t.checkWarm.push(check(dir, cache));
      t.daemonWarm.push(check(dir, daemonCache, DAEMON));
      t.directWarm.push(sequence(p.warm, dir));
    }
    for (const [mode, c, d] of [
      ["cold", t.checkCold, t.directCold],
      ["cold, --daemon", t.daemonCold, t.directCold],
      ["warm", t.checkWarm, t.directWarm],
      ["warm, --daemon", t.daemonWarm, t.directWarm],
    ])
      rows.push({
        case: `check ${mode}: ${p.name}`,
        "server/check median ms": ms(median(c)),
        "direct median ms": ms(median(d)),
        direct: (mode.startsWith("cold") ? p.cold : p.warm)
          .map((c) => c.filter((a) => !a.startsWith("/")).join(" "))
          .join(" && "),
        "direct / server": (median(d) / median(c)).toFixed(2),
        runs: c.length,
      });
    fs.rmSync(dir, { recursive: true, force: true });
  }
  run([process.execPath, CLI, "check", "--daemon-stop"], repo);
  if (have("rubocop") && process.env.BENCH_RUBOCOP !== "false") await rubocopRows(rows);
  notes.push(
    "--daemon: `check` through the check daemon, started untimed first; cold = an empty result cache",
  );
  notes.push(`load average at end ${load()}`);
  return { title: "check and RuboCop against the project's own commands", rows, notes };
}
