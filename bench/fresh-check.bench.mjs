// A fresh `check` on real projects (issue 42) whose result is wholly cached, against the project's tools run
// by hand with their own caches warm, side by side, interleaved: the command line from its start-up
// snapshot (bin/mcp-code-quality), from its modules (node dist/cli.js), through the warm daemon (`--daemon`),
// and `node -e 0`. CPU is the user +
// system time of the command and everything it started (bash's `times`); with the result cached and the
// probes remembered, a check starts nothing, so its CPU is its own. Projects: bench/lib/real-projects.mjs.
// FRESH_CHECK_MODE=edit: after a one-line edit; FRESH_CHECK_MODE=cold: every cache of both sides cleared alike
// before each timed run (bench/lib/cold-caches.mjs; run it on copies of the projects: it deletes their caches).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchProjects, loadAverage } from "./lib/real-projects.mjs";
import { clearColdCaches, coldEnv } from "./lib/cold-caches.mjs";
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

// The tools' own caches by hand, kept out of the checkouts (ESLint's and Prettier's default to the project),
// one folder per bench run (two benches at once would share ESLint's cache file).
const HAND_CACHE = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-fresh-hand-"));
const RUFF_BY_HAND = [
  ["ruff", "format", "--check", "."],
  ["ruff", "check", "--no-fix", "."],
];

/**
 * What each project's check runs, the same tools by hand (never writing: flask's ruff config fixes), and the
 * file an edit run appends a comment line to (`comment` starts it).
 */
const PROJECTS = {
  flask: { only: "ruff", byHand: RUFF_BY_HAND, edit: ["src/flask/app.py", "#"] },
  // pylint lints with ruff (and formats with black through pre-commit): its ruff lint on both sides.
  pylint: {
    only: "ruff",
    byHand: [["ruff", "check", "--no-fix", "."]],
    edit: ["pylint/lint/pylinter.py", "#"],
  },
  zustand: {
    only: "js",
    byHand: [
      [
        "node_modules/.bin/prettier",
        ".",
        "--list-different",
        "--cache",
        "--cache-location",
        `${HAND_CACHE}/prettier`,
      ],
      ["node_modules/.bin/eslint", ".", "--cache", "--cache-location", `${HAND_CACHE}/eslint`],
      ["node_modules/.bin/tsc", "--noEmit"],
    ],
    edit: ["src/vanilla.ts", "//"],
  },
  rake: { only: "ruby", byHand: [["rubocop"]], edit: ["lib/rake/task.rb", "#"] },
  cobra: {
    only: "go",
    byHand: [
      ["gofmt", "-l", "."],
      // cobra's .golangci.yml: check runs golangci-lint in go vet's place.
      ["golangci-lint", "run", "./..."],
      ["go", "build", "-o", "/dev/null", "./..."],
    ],
    edit: ["command.go", "//"],
  },
  log: {
    only: "rust",
    byHand: [
      ["cargo", "fmt", "--check"],
      ["cargo", "clippy", "--quiet"],
      ["cargo", "check", "--quiet"],
      // The crate below the root, which check finds and checks too.
      ["cargo", "fmt", "--check", "--manifest-path", "test_max_level_features/Cargo.toml"],
      ["cargo", "clippy", "--quiet", "--manifest-path", "test_max_level_features/Cargo.toml"],
      ["cargo", "check", "--quiet", "--manifest-path", "test_max_level_features/Cargo.toml"],
    ],
    edit: ["src/lib.rs", "//"],
  },
};

/** FRESH_CHECK_MODE=edit: a one-line edit (a new comment line, new each run) before every timed run. */
const EDIT = process.env.FRESH_CHECK_MODE === "edit";
/**
 * FRESH_CHECK_MODE=cold: before every timed run of either side, the caches both sides would use cleared alike
 * (bench/lib/cold-caches.mjs): the tools' own (ruff's, ESLint's, Prettier's, RuboCop's, golangci-lint's,
 * Go's build cache, cargo's target dirs) and check's result cache and its cargo target dirs. No daemon side:
 * a daemon is warm by design, and cold it would be a fresh check plus the daemon's start.
 */
const COLD = process.env.FRESH_CHECK_MODE === "cold";
/** FRESH_CHECK_PROJECTS=flask,cobra: only these. */
const ONLY = process.env.FRESH_CHECK_PROJECTS?.split(",").filter(Boolean);

export default async function run() {
  const found = benchProjects(ONLY ?? Object.keys(PROJECTS));
  const rows = [];
  const notes = [];
  for (const [name, dir] of Object.entries(found)) {
    const spec = PROJECTS[name];
    const xdg = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-fresh-"));
    const env = COLD ? coldEnv({ ...process.env, PATH }, xdg) : { ...process.env, PATH, XDG_CACHE_HOME: xdg };
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
      // The bin as users run it: the last run's answer replayed when nothing it read changed (src/check/answer/),
      // else the snapshot; and the snapshot alone, nothing kept nor replayed.
      ["check (snapshot)", [BIN, ...checkArgs]],
      ...(COLD ? [] : [["check, no replay", ["env", "MCP_CODE_QUALITY_CHECK_REPLAY=0", BIN, ...checkArgs]]]),
      ["check (modules)", [process.execPath, CLI, ...checkArgs]],
      ...(COLD ? [] : [["check --daemon", [BIN, ...checkArgs, "--daemon"]]]),
    ];
    const cold = () => clearColdCaches({ dir, xdg, handCache: HAND_CACHE });
    // Exit statuses: one per command by hand (joined), check's own.
    const byHand = () =>
      spec.byHand.reduce(
        (sum, argv) => {
          const r = timed(argv, dir, env);
          return { wall: sum.wall + r.wall, cpu: sum.cpu + r.cpu, status: [...sum.status, r.status] };
        },
        { wall: 0, cpu: 0, status: [] },
      );
    // Untimed: the result cache filled, the probes remembered, the tools' own caches warm (cold: the probes
    // and the server's V8 code cache, which stay; the OS's page cache for both sides' executables).
    byHand();
    for (const [, argv] of sides.slice(2, COLD ? 3 : undefined)) timed(argv, dir, env);
    const samples = new Map(sides.map(([side]) => [side, { wall: [], cpu: [], status: new Set() }]));
    const cleared = new Set();
    const [editFile, comment] = spec.edit;
    const edited = path.join(dir, editFile);
    const original = fs.readFileSync(edited);
    let edits = 0;
    try {
      for (let i = 0; i < RUNS; i++)
        for (const [side, argv] of sides) {
          // Each side sees a file it has not seen before (a fresh comment), as after an agent's edit.
          if (EDIT) fs.writeFileSync(edited, `${original}${comment} bench edit ${++edits}\n`);
          if (COLD) for (const c of cold()) cleared.add(c);
          const r = argv ? timed(argv, dir, env) : byHand();
          samples.get(side).wall.push(r.wall);
          samples.get(side).cpu.push(r.cpu);
          samples.get(side).status.add([r.status].flat().join("/"));
        }
    } finally {
      fs.writeFileSync(edited, original);
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
        exit: [...samples.get(side).status].join(" | "),
      });
    notes.push(
      `${name}: load average ${loadAverage()} at its end` +
        (COLD ? `; cleared before each timed run: ${[...cleared].sort().join(", ")}` : ""),
    );
    timed([BIN, "check", "--daemon-stop"], dir, env);
    if (COLD) cold();
    fs.rmSync(xdg, { recursive: true, force: true });
  }
  fs.rmSync(HAND_CACHE, { recursive: true, force: true });
  notes.push(`load average ${loadAverage()}; ${RUNS} runs each, interleaved; medians`);
  notes.push(
    COLD
      ? "cold: before every timed run of either side the tools' caches (in the project, under XDG_CACHE_HOME with GOCACHE and GOLANGCI_LINT_CACHE there, ESLint's and Prettier's locations), cargo's target dirs (the project's target/ and the server's own) and check's result cache were removed; kept warm: the OS's page cache, Go's module cache, cargo's registry, node_modules, the server's probes and V8 code cache"
      : EDIT
        ? "before every timed run a new comment line is appended to one file (flask src/flask/app.py, pylint pylint/lint/pylinter.py, zustand src/vanilla.ts, rake lib/rake/task.rb, cobra command.go, log src/lib.rs): each side checks one changed file, the rest from its cache"
        : "check's result wholly cached (an untimed run first); the tools by hand with their own caches warm",
  );
  const title = COLD
    ? "a fresh check on real projects, every cache cold (wall and CPU, ms)"
    : EDIT
      ? "a fresh check on real projects after a one-line edit (wall and CPU, ms)"
      : "a fresh check on real projects, result cached (wall and CPU, ms)";
  return { title, rows, notes };
}
