// A fresh `check` on real projects (issue 42) whose result is wholly cached, against the project's tools run
// by hand with their own caches warm, side by side, interleaved: the command line from its start-up
// snapshot (bin/mcp-code-quality), from its modules (node dist/cli.js), through the warm daemon (`--daemon`),
// and `node -e 0`. CPU is the user +
// system time of the command and everything it started (bash's `times`); with the result cached and the
// probes remembered, a check starts nothing, so its CPU is its own. Projects: bench/lib/real-projects.mjs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchProjects, loadAverage } from "./lib/real-projects.mjs";
import { median, ms } from "./stats.mjs";
import { timed } from "./lib/timed.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = Number(process.env.FRESH_CHECK_RUNS ?? 9);
const PATH = [
  path.join(repo, ".tools", "venv", "bin"),
  path.join(repo, ".tools", "go", "bin"),
  process.env.PATH,
].join(":");
const BIN = path.join(repo, "bin", "mcp-code-quality");
const CLI = path.join(repo, "dist", "cli.js");

/** What each project's check runs, and the same tools by hand (never writing: flask's ruff config fixes). */
const PROJECTS = {
  flask: {
    only: "ruff",
    byHand: [
      ["ruff", "format", "--check", "."],
      ["ruff", "check", "--no-fix", "."],
    ],
  },
  cobra: {
    only: "go",
    byHand: [
      ["gofmt", "-l", "."],
      ["go", "vet", "./..."],
      ["go", "build", "-o", "/dev/null", "./..."],
    ],
  },
  log: {
    only: "rust",
    byHand: [
      ["cargo", "fmt", "--check"],
      ["cargo", "clippy", "--quiet"],
      ["cargo", "check", "--quiet"],
    ],
  },
};

export default async function run() {
  const found = benchProjects(Object.keys(PROJECTS));
  const rows = [];
  const notes = [];
  for (const [name, dir] of Object.entries(found)) {
    const spec = PROJECTS[name];
    const xdg = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-fresh-"));
    const env = { ...process.env, PATH, XDG_CACHE_HOME: xdg };
    const checkArgs = [
      "check",
      ".",
      "--only",
      spec.only,
      "--result-cache",
      "true",
      "--json",
      "--audit-log",
      path.join(xdg, "audit.log"),
    ];
    const sides = [
      ["node -e 0", [process.execPath, "-e", "0"]],
      ["tools by hand", null],
      ["check (snapshot)", [BIN, ...checkArgs]],
      ["check (modules)", [process.execPath, CLI, ...checkArgs]],
      ["check --daemon", [BIN, ...checkArgs, "--daemon"]],
    ];
    const byHand = () =>
      spec.byHand.reduce(
        (sum, argv) => {
          const r = timed(argv, dir, env);
          return { wall: sum.wall + r.wall, cpu: sum.cpu + r.cpu };
        },
        { wall: 0, cpu: 0 },
      );
    // Untimed: the result cache filled, the probes remembered, the tools' own caches warm.
    byHand();
    for (const [, argv] of sides.slice(2)) timed(argv, dir, env);
    const samples = new Map(sides.map(([side]) => [side, { wall: [], cpu: [] }]));
    for (let i = 0; i < RUNS; i++)
      for (const [side, argv] of sides) {
        const r = argv ? timed(argv, dir, env) : byHand();
        samples.get(side).wall.push(r.wall);
        samples.get(side).cpu.push(r.cpu);
      }
    const med = (side, what) => median(samples.get(side)[what]);
    for (const [side] of sides)
      rows.push({
        project: name,
        side,
        "wall ms": ms(med(side, "wall")),
        "CPU ms": ms(med(side, "cpu")),
        "tools ÷ this (wall)": side.startsWith("check")
          ? (med("tools by hand", "wall") / med(side, "wall")).toFixed(2)
          : "",
        "CPU ÷ node -e 0": (med(side, "cpu") / med("node -e 0", "cpu")).toFixed(2),
      });
    timed([BIN, "check", "--daemon-stop"], dir, env);
    fs.rmSync(xdg, { recursive: true, force: true });
  }
  notes.push(`load average ${loadAverage()}; ${RUNS} runs each, interleaved; medians`);
  notes.push(
    "check's result wholly cached (an untimed run first); the tools by hand with their own caches warm",
  );
  return { title: "a fresh check on real projects, result cached (wall and CPU, ms)", rows, notes };
}
