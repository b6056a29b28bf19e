/**
 * A fresh `check` whose last run here kept its answer prints it again without starting the command line
 * (src/check/answer/), and only when nothing that answer came from changed: the real bin/mcp-code-quality,
 * the real ruff, a copy of the Python fixture. `strace` shows that the recording misses nothing the run
 * looked at.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { CHECK_FIXTURES, PATH_WITH_TOOLS } from "../helpers/check.js";
import { CLI, REPO_ROOT } from "../helpers/server.js";
import { copyFixture, IN_CI, missing, tempDir } from "../helpers/tools.js";
import { stracePaths } from "../helpers/strace-paths.js";

const BIN = path.join(REPO_ROOT, "bin", "mcp-code-quality");
const NATIVE = path.join(REPO_ROOT, "dist", "native", "check-front");
const NODE_REPLAY = path.join(REPO_ROOT, "dist", "bundle", "check-replay.cjs");
const BLOB = path.join(REPO_ROOT, "dist", "bundle", `cli-snapshot-${process.version}-${os.machine()}.blob`);

let project: string;
let cache: string;
let audit: string;
let args: string[];

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: PATH_WITH_TOOLS,
    XDG_CACHE_HOME: cache,
    MCP_CODE_QUALITY_RESULT_CACHE: "true",
    MCP_CODE_QUALITY_CHECK_REPLAY: "explain",
    ...extra,
  };
}

function check(extraArgs: string[] = [], extraEnv: Record<string, string> = {}) {
  const r = spawnSync(BIN, [...args, ...extraArgs], { cwd: project, env: env(extraEnv), encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Each replayer run alone (the bin runs the native one when built): Node's, and the native one. */
function replayers(): [string, string[]][] {
  return [
    ["node", ["node", NODE_REPLAY]],
    ...(fs.existsSync(NATIVE) ? [["native", [NATIVE]] as [string, string[]]] : []),
  ];
}

/** Every replayer prints `stdout` again with `status`. */
function allReplay(stdout: string, status: number | null) {
  for (const [name, argv] of replayers()) {
    const r = spawnSync(argv[0]!, [...argv.slice(1), ...args], {
      cwd: project,
      env: env(),
      encoding: "utf8",
    });
    expect([name, r.status, r.stderr]).toEqual([name, status, "mcp-code-quality check: replayed\n"]);
    expect(r.stdout, name).toBe(stdout);
  }
}

/** Every replayer declines (exit 75, nothing on stdout), saying why. */
function noneReplays(why: RegExp, extraEnv: Record<string, string> = {}) {
  for (const [name, argv] of replayers()) {
    const r = spawnSync(argv[0]!, [...argv.slice(1), ...args], {
      cwd: project,
      env: env(extraEnv),
      encoding: "utf8",
    });
    expect([name, r.status, r.stdout]).toEqual([name, 75, ""]);
    expect(r.stderr, name).toMatch(why);
  }
}

/** Runs the check until its answer is kept (a cold run runs ruff first, which keeps nothing). */
function keepAnswer() {
  let run = check();
  for (let i = 0; i < 3 && !/check: answer kept$/m.test(run.stderr); i++) run = check();
  expect(run.stderr).toMatch(/check: answer kept$/m);
  return run;
}

const findingFiles = (stdout: string) =>
  (JSON.parse(stdout) as { findings: { file: string; rule_id?: string }[] }).findings.map((f) => f.file);

const memoFiles = () => {
  const dir = path.join(cache, "mcp-code-quality", "answers");
  return fs.readdirSync(dir).map((n) => path.join(dir, n));
};

beforeEach(() => {
  project = copyFixture(path.join(CHECK_FIXTURES, "python"));
  fs.mkdirSync(path.join(project, "pkg"));
  fs.writeFileSync(path.join(project, "pkg", "mod.py"), "def f() -> int:\n    return 1\n");
  cache = tempDir("mcq-replay-cache-");
  audit = path.join(tempDir("mcq-replay-audit-"), "audit.log");
  args = ["check", ".", "--only", "ruff", "--json", "--audit-log", audit];
});

describe("check's kept answer", () => {
  it("npm run build made the native replayer where Go is installed", () => {
    if (missing("go")) return;
    expect(fs.existsSync(NATIVE)).toBe(true);
  });

  it("is printed again byte for byte, with its exit code, and its audit entries appended again", () => {
    const kept = keepAnswer();
    const entries = fs.readFileSync(audit, "utf8").trim().split("\n").length;
    allReplay(kept.stdout, kept.status);
    const again = check();
    expect(again.stderr).toMatch(/replayed/);
    // The command line did not run: it would have said whether it kept the answer.
    expect(again.stderr).not.toMatch(/answer (not )?kept/);
    expect(again.stdout).toBe(kept.stdout);
    expect(again.status).toBe(kept.status);
    expect(again.status).toBe(1);
    expect(findingFiles(again.stdout)).toContain("app.py");
    const lines = fs.readFileSync(audit, "utf8").trim().split("\n");
    const replayed = lines.slice(entries).map((l) => JSON.parse(l) as { operation: string; details: object });
    // Each replay (the replayers' own and the bin's) appended the run's entries again.
    const [memo] = memoFiles();
    const perRun = (JSON.parse(fs.readFileSync(memo!, "utf8")) as { audit: { lines: string[] } }).audit.lines
      .length;
    expect(perRun).toBeGreaterThan(0);
    expect(replayed.length).toBe(perRun * (replayers().length + 1));
    for (const e of replayed) expect(e.details).toMatchObject({ replayed: true });
  });

  it("is not printed after an edit, a file added in a new folder, or a rewrite at the same size and time", () => {
    keepAnswer();
    fs.appendFileSync(path.join(project, "pkg", "mod.py"), "import sys\n");
    noneReplays(/no replay: changed: .*mod\.py/);
    const edited = check();
    expect(edited.stderr).toMatch(/no replay: changed: .*mod\.py/);
    expect(findingFiles(edited.stdout)).toContain("pkg/mod.py");

    keepAnswer();
    fs.mkdirSync(path.join(project, "pkg", "deeper"));
    const file = path.join(project, "pkg", "deeper", "new.py");
    fs.writeFileSync(file, "import os\n");
    // A whole second: a rewrite below can put it back exactly.
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
    noneReplays(/no replay: changed: .*pkg/);
    const added = check();
    expect(added.stderr).toMatch(/no replay: changed: .*pkg/);
    expect(findingFiles(added.stdout)).toContain("pkg/deeper/new.py");

    keepAnswer();
    // Same size, and the modification time put back: the change time still tells.
    const before = fs.statSync(file, { bigint: true });
    fs.writeFileSync(file, "import re\n");
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
    const after = fs.statSync(file, { bigint: true });
    expect([after.size, after.mtimeNs]).toEqual([before.size, before.mtimeNs]);
    noneReplays(/no replay: changed: .*new\.py/);
    const rewritten = check();
    expect(rewritten.stderr).toMatch(/no replay: changed: .*new\.py/);
  });

  it("names, of two changed files, the one changed last: each replayer looks at those first", async () => {
    const first = path.join(project, "pkg", "first.py");
    fs.writeFileSync(first, "A = 1\n");
    await new Promise((r) => setTimeout(r, 50));
    // Twenty files changed after it: it is not among the sixteen a memo names as changed last.
    fs.mkdirSync(path.join(project, "later"));
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(project, "later", `m${i}.py`), `B${i} = 1\n`);
    const last = path.join(project, "later", "m19.py");
    await new Promise((r) => setTimeout(r, 150));
    keepAnswer();
    fs.appendFileSync(first, "C = 2\n");
    fs.appendFileSync(last, "C = 2\n");
    noneReplays(new RegExp(`no replay: changed: ${last.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  });

  it("is not printed when a variable the check reads changed; one it never reads changes nothing", () => {
    const kept = keepAnswer();
    noneReplays(/no replay: changed: environment variable MCP_CODE_QUALITY_TIMEOUT/, {
      MCP_CODE_QUALITY_TIMEOUT: "77",
    });
    allReplay(kept.stdout, kept.status);
    expect(check([], { MCQ_REPLAY_UNRELATED: "1" }).stderr).toMatch(/replayed/);
    const timeout = check([], { MCP_CODE_QUALITY_TIMEOUT: "77" });
    expect(timeout.stderr).toMatch(/no replay: changed: environment variable MCP_CODE_QUALITY_TIMEOUT/);
  });

  it("is not kept for a run that writes a file, or without the result cache", () => {
    keepAnswer();
    const sarif = path.join(tempDir("mcq-replay-sarif-"), "out.sarif");
    expect(check(["--sarif", sarif]).stderr).toMatch(/answer not kept: --sarif/);
    expect(fs.existsSync(sarif)).toBe(true);
    expect(check(["--result-cache", "false"]).stderr).toMatch(/answer not kept: the result cache is off/);
  });

  it("is not kept in a folder inside the project (its tools could write an answer there)", () => {
    const inside = path.join(project, ".cache");
    // The first run fills the result cache (ruff runs); the second would keep its answer.
    check([], { XDG_CACHE_HOME: inside });
    const run = check([], { XDG_CACHE_HOME: inside });
    expect(run.stderr).toMatch(/answer not kept: the answers' folder: .* is inside the allowed path/);
    expect(fs.existsSync(path.join(inside, "mcp-code-quality", "answers"))).toBe(false);
  });

  it("is not printed from a memo whose deps or output are not what a recording writes", () => {
    const kept = keepAnswer();
    const [memo] = memoFiles();
    const original = fs.readFileSync(memo!, "utf8");
    const edit = (change: (m: { deps: Record<string, unknown>; output: unknown }) => void) => {
      const m = JSON.parse(original) as { deps: Record<string, unknown>; output: unknown };
      change(m);
      fs.writeFileSync(memo!, JSON.stringify(m), { mode: 0o600 });
    };
    // A folder's deps that are not an object of states (each replayer reads a folder's deps when it
    // first looks at it): no replay, whichever folder it is.
    const folders = Object.keys(JSON.parse(original).deps as object);
    for (const folder of [folders[0]!, folders.at(-1)!]) {
      edit((m) => (m.deps[folder] = "not deps"));
      noneReplays(/no replay: (nothing kept|changed: the kept deps of)/);
    }
    // An output that is not chunks of stdout and stderr.
    edit((m) => (m.output = [[3, "x"]]));
    noneReplays(/no replay: nothing kept/);
    // As recorded, it replays again.
    fs.writeFileSync(memo!, original, { mode: 0o600 });
    allReplay(kept.stdout, kept.status);
  });

  it("is not read from a file someone else could have written, or through a link", () => {
    keepAnswer();
    const [memo] = memoFiles();
    fs.chmodSync(memo!, 0o664);
    noneReplays(/no replay: nothing kept/);
    const refused = check();
    expect(refused.stderr).toMatch(/no replay: nothing kept/);
    // That run kept its answer anew, owner-only.
    expect(refused.stderr).toMatch(/check: answer kept$/m);
    expect(check().stderr).toMatch(/replayed/);
    const [again] = memoFiles();
    const elsewhere = path.join(tempDir("mcq-replay-link-"), "memo.json");
    fs.renameSync(again!, elsewhere);
    fs.symlinkSync(elsewhere, again!);
    noneReplays(/no replay: nothing kept/);
    expect(check().stderr).toMatch(/no replay: nothing kept/);
  });

  it("depends on every path the recording run looked at (strace)", () => {
    if (missing("strace")) {
      expect(IN_CI, "scripts/install-tools.sh installs strace").toBe(false);
      return;
    }
    keepAnswer();
    for (const f of memoFiles()) fs.rmSync(f);
    const log = path.join(tempDir("mcq-replay-strace-"), "trace");
    const command = fs.existsSync(BLOB) ? ["--snapshot-blob", BLOB] : [CLI];
    const traced = spawnSync(
      "strace",
      [
        "-f",
        "-y",
        "-qq",
        "-e",
        "trace=openat,open,stat,lstat,newfstatat,statx,access,faccessat,faccessat2,readlink,readlinkat,getdents64,close",
        "-o",
        log,
        "--",
        process.execPath,
        ...command,
        ...args,
      ],
      { cwd: project, env: env(), encoding: "utf8" },
    );
    expect(traced.stderr).toMatch(/check: answer kept$/m);
    const [memo] = memoFiles();
    const grouped = (JSON.parse(fs.readFileSync(memo!, "utf8")) as { deps: Record<string, object> }).deps;
    const deps = new Set(
      Object.entries(grouped).flatMap(([dir, names]) =>
        Object.keys(names).map((n) => (n ? path.join(dir, n) : dir)),
      ),
    );
    const looked = stracePaths(fs.readFileSync(log, "utf8"));
    // Node's own start, the server's code and its own folders are not the project's.
    const notDeps = ["/proc/", "/sys/", "/dev/", "/etc/", "/usr/lib/", "/lib/", "/usr/share/", cache + "/"];
    const ownCode = [path.join(REPO_ROOT, "dist") + "/", path.join(REPO_ROOT, "node_modules") + "/"];
    const ancestors = new Set<string>();
    for (const p of [...deps, ...notDeps, cache, audit])
      for (let d = path.dirname(p); d !== path.dirname(d); d = path.dirname(d)) ancestors.add(d);
    ancestors.add("/");
    const unrecorded = [...looked].filter(
      (p) =>
        !deps.has(p) &&
        !ancestors.has(p) &&
        p !== audit &&
        p !== process.execPath &&
        !(notDeps.some((d) => p.startsWith(d) || p === d.slice(0, -1)) && !/^\/proc\/self\/fd\//.test(p)) &&
        !ownCode.some((d) => p.startsWith(d)),
    );
    expect(unrecorded).toEqual([]);
    // A path through a descriptor means nothing to another process: each is kept as the folder it was open on.
    expect([...deps].filter((p) => /^\/(?:proc|dev)\/.*\/fd\//.test(p))).toEqual([]);
    // Not vacuous: the project's files were looked at, and are dependencies.
    const inProject = [...looked].filter((p) => p.startsWith(project + "/"));
    expect(inProject).toEqual(
      expect.arrayContaining([path.join(project, "app.py"), path.join(project, "pkg", "mod.py")]),
    );
    for (const p of inProject) expect(deps.has(p) || ancestors.has(p), p).toBe(true);
  });
});
