// The git pre-commit hook as people meet it: `git commit` of one staged Python file and of one staged
// TypeScript file in a real repository with the hook installed (`hook install pre-commit`), against what the
// hook does on that file done directly: the linter on the file (ruff; ESLint with the hook's bundled config)
// and one Node start, with `git commit --no-verify` for git's own part. All of them interleaved, each commit
// a new content (the result cache has never seen it), medians; the load average is printed beside them.
// The same commits with the hook installed with `--daemon` (a small client of the warm check daemon, started
// and warmed by an untimed commit first, in a runtime folder of its own, stopped in the end).
// Target (issue 41): the hook's time within 2× the tools it runs on the file plus one Node start.
// MCQ_BASELINE_REF / MCQ_BASELINE_DIR (lib/baseline.mjs) adds the same commits with the baseline's hook.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { baseline } from "./lib/baseline.mjs";
import { median, ms } from "./stats.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = Number(process.env.MCQ_BENCH_RUNS ?? 7);
const venv = path.join(root, ".tools", "venv", "bin");
const env = {
  ...process.env,
  PATH: `${venv}:${process.env.PATH ?? ""}`,
  GIT_AUTHOR_NAME: "b",
  GIT_AUTHOR_EMAIL: "b@example.com",
  GIT_COMMITTER_NAME: "b",
  GIT_COMMITTER_EMAIL: "b@example.com",
};

function exec(argv, cwd, input, runEnv = env) {
  const t = performance.now();
  const r = spawnSync(argv[0], argv.slice(1), { cwd, env: runEnv, input, encoding: "utf8" });
  const wall = performance.now() - t;
  if (r.status !== 0 && r.status !== 1)
    throw new Error(`${argv.join(" ")} exited ${r.status}: ${r.stderr || r.error?.message}`);
  return { wall, status: r.status, out: r.stdout + r.stderr };
}

/** A repository with `hook install pre-commit` from `cli` (with `flags`), and `file` as its one file to change. */
function repository(cli, file, flags = [], runEnv = env) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-precommit-")));
  exec(["git", "init", "-q", "-b", "main"], dir);
  fs.writeFileSync(path.join(dir, "README.md"), "# bench\n");
  exec(["git", "add", "-A"], dir);
  exec(["git", "commit", "-qm", "init", "--no-verify"], dir);
  const installed = exec(
    [process.execPath, cli, "hook", "install", "pre-commit", ...flags, "--project", dir],
    dir,
    undefined,
    runEnv,
  );
  if (!installed.out.includes("verified")) throw new Error(`hook install: ${installed.out}`);
  return { dir, file: path.join(dir, file), env: runEnv };
}

/** Content that passes the linter and the policies, new at every call. */
const content = {
  py: (i) => `def add_${i}(a: int, b: int) -> int:\n    return a + b + ${i}\n`,
  ts: (i) => `export function add${i}(a: number, b: number): number {\n  return a + b + ${i};\n}\n`,
};

function commit(repo, text, noVerify = false) {
  fs.writeFileSync(repo.file, text);
  exec(["git", "add", "-A"], repo.dir);
  const r = exec(
    ["git", "commit", "-qm", "change", ...(noVerify ? ["--no-verify"] : [])],
    repo.dir,
    undefined,
    repo.env,
  );
  if (r.status !== 0) throw new Error(`the commit was refused: ${r.out}`);
  return r.wall;
}

export default async function run() {
  const cli = path.join(root, "dist", "cli.js");
  const base = process.env.MCQ_BASELINE_REF || process.env.MCQ_BASELINE_DIR ? baseline(root) : undefined;
  const eslintConfig = path.join(
    fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-eslint-")),
    "eslint.config.mjs",
  );
  // The hook's bundled ESLint config (src/adapters/js/workers/eslint-worker.ts), for ESLint run by hand.
  const nm = (p) => JSON.stringify(path.join(root, "node_modules", p));
  fs.writeFileSync(
    eslintConfig,
    [
      `import js from ${nm("@eslint/js/src/index.js")};`,
      `import tseslint from ${nm("typescript-eslint/dist/index.js")};`,
      `import globals from ${nm("globals/index.js")};`,
      "export default [js.configs.recommended, ...tseslint.configs.recommended,",
      "  { languageOptions: { globals: { ...globals.browser, ...globals.node } } }];",
      "",
    ].join("\n"),
  );
  const eslint = path.join(root, "node_modules", "eslint", "bin", "eslint.js");
  // The daemon's own runtime folder (0700, as systemd makes it): its socket, secret and log are the bench's.
  const runtime = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-run-"));
  const daemonEnv = { ...env, XDG_RUNTIME_DIR: runtime };
  const rows = [];
  for (const kind of ["py", "ts"]) {
    const hooked = repository(cli, `app.${kind}`);
    const plain = repository(cli, `app.${kind}`);
    const viaDaemon = repository(cli, `app.${kind}`, ["--daemon"], daemonEnv);
    // The baseline shares this checkout's node_modules through a link the sandbox does not follow out of its
    // folder, so its ESLint cannot load there: it is compared on the Python commit only.
    const baseRepo = base && kind === "py" ? repository(base.cli, `app.${kind}`) : undefined;
    const direct = () =>
      kind === "py"
        ? exec(["ruff", "check", "--no-cache", "--isolated", hooked.file], hooked.dir).wall
        : exec([process.execPath, eslint, "--config", eslintConfig, "--no-cache", hooked.file], hooked.dir)
            .wall;
    const t = { hook: [], daemon: [], noVerify: [], tool: [], node: [], base: [] };
    let n = 0;
    // One untimed round: the first start of each reads its files from disk (and starts the daemon; a second
    // commit through it loads what the first one's modules load lazily).
    commit(hooked, content[kind](n++));
    commit(viaDaemon, content[kind](n++));
    commit(viaDaemon, content[kind](n++));
    if (baseRepo) commit(baseRepo, content[kind](n++));
    for (let i = 0; i < RUNS; i++) {
      t.node.push(exec([process.execPath, "-e", ""], hooked.dir).wall);
      t.tool.push(direct());
      t.noVerify.push(commit(plain, content[kind](n++), true));
      t.hook.push(commit(hooked, content[kind](n++)));
      t.daemon.push(commit(viaDaemon, content[kind](n++)));
      if (baseRepo) t.base.push(commit(baseRepo, content[kind](n++)));
    }
    const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v.length ? median(v) : undefined]));
    const budget = m.tool + m.node;
    const hookOwn = m.hook - m.noVerify;
    rows.push({
      what: `commit of one staged ${kind === "py" ? "Python file (ruff)" : "TypeScript file (ESLint)"}`,
      "commit --no-verify": ms(m.noVerify),
      "commit (hook)": ms(m.hook),
      ...(baseRepo ? { [`commit (hook at ${base.commit})`]: ms(m.base) } : {}),
      [kind === "py" ? "ruff on the file" : "eslint on the file"]: ms(m.tool),
      'node -e ""': ms(m.node),
      "commit (hook --daemon)": ms(m.daemon),
      "hook ÷ (tool + node)": `${(hookOwn / budget).toFixed(2)}×`,
      "hook --daemon ÷ (tool + node)": `${((m.daemon - m.noVerify) / budget).toFixed(2)}×`,
      ...(baseRepo
        ? { "baseline hook ÷ (tool + node)": `${((m.base - m.noVerify) / budget).toFixed(2)}×` }
        : {}),
    });
    for (const r of [hooked, plain, viaDaemon, baseRepo])
      if (r) fs.rmSync(r.dir, { recursive: true, force: true });
  }
  // The daemon a hook uses: git's environment for hooks (its exec path first on PATH), without the variables
  // of one commit (src/check/daemon/key.ts).
  const gitExecPath = exec(["git", "--exec-path"], root).out.trim();
  const shared = Object.fromEntries(Object.entries(daemonEnv).filter(([k]) => !k.startsWith("GIT_")));
  exec([process.execPath, cli, "check", "--daemon-stop"], root, undefined, {
    ...shared,
    PATH: `${gitExecPath}:${shared.PATH}`,
  });
  fs.rmSync(runtime, { recursive: true, force: true });
  return {
    title: `git pre-commit hook, one staged file (median ms of ${RUNS}, interleaved; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(", ")})`,
    rows,
    notes: [
      "hook ÷ (tool + node): the hook's own time (commit with the hook minus commit --no-verify) over the linter run by hand on the file plus one bare Node start; the target is ≤ 2×.",
      "hook --daemon: installed with `hook install pre-commit --daemon`: a small client asks the warm check daemon, which runs the same hook (the daemon started and warmed before the timed commits).",
    ],
  };
}
