/**
 * `hook pre-commit --daemon`: the git hook as a small client of the warm check daemon gives the very verdict
 * of the hook run in its own process. Real `git commit`s in a real repository, real ruff: a hook script runs
 * both (`--no-daemon`, then `--daemon`) on the same commit, in git's environment, and refuses the commit so
 * that the next case starts from the same state. A passing commit, a blocked one, a lint error staged while
 * the work tree is fixed (read from the index git names), and partial commits (`git commit -- file`, which
 * git judges from a temporary index named by GIT_INDEX_FILE) answer the same, byte for byte. Git's
 * per-commit variables stay out of the daemon's key (one daemon serves every commit) and travel with each
 * request. When the daemon cannot be used, the hook runs in the client, with a note. Installed with
 * `hook install pre-commit --daemon`, a commit goes through the daemon.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hookDaemonChoice } from "../../src/check/daemon/flags.js";
import { isPerCommitVar, requestEnv, splitPerCommit } from "../../src/check/daemon/key.js";
import { parseRequest } from "../../src/check/daemon/protocol.js";
import { PATH_WITH_TOOLS } from "../helpers/check.js";
import { CLI, REPO_ROOT } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const noRuff = missing("ruff", [TOOLS_VENV_BIN]);
const HOOK = path.join(REPO_ROOT, "dist", "hook.js");
/** The native client (native/check/daemon.go), where `npm run build` had Go: it asks a daemon that runs. */
const FRONT = path.join(REPO_ROOT, "dist", "native", "check-front");
const FRONT_BUILT = fs.existsSync(FRONT);
/** The checks of a commit the hook script below makes: the Node client's, and the native one's. */
const PER_COMMIT = FRONT_BUILT ? 2 : 1;
const MISS = 75;

/** The tests' environment: their own daemon folder (TMPDIR, runtime folder), ruff on PATH, no opt-in. */
function isolatedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && k !== "MCP_CODE_QUALITY_CHECK_DAEMON") env[k] = v;
  return {
    ...env,
    PATH: PATH_WITH_TOOLS,
    TMPDIR: tempDir("mcq-hookd-tmp-"),
    XDG_RUNTIME_DIR: tempDir("mcq-hookd-run-"),
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.com",
  };
}

const envs: Record<string, string>[] = [];

const GIT_EXEC_PATH = execFileSync("git", ["--exec-path"], { encoding: "utf8" }).trim();

/**
 * `check --daemon-status` / `--daemon-stop` for the daemon a hook of `env` uses: git's variables apart, in
 * the environment git gives its hooks (its exec path first on PATH).
 */
function daemon(env: Record<string, string>, action: "--daemon-status" | "--daemon-stop") {
  const shared = splitPerCommit(env).shared;
  return spawnSync(process.execPath, [CLI, "check", action], {
    env: { ...shared, PATH: `${GIT_EXEC_PATH}:${shared.PATH ?? ""}` },
    encoding: "utf8",
  });
}

afterAll(() => {
  for (const env of envs) {
    const st = daemon(env, "--daemon-status");
    daemon(env, "--daemon-stop");
    if (st.status === 0) {
      try {
        process.kill((JSON.parse(st.stdout) as { pid: number }).pid, "SIGKILL");
      } catch {
        // ended already
      }
    }
  }
});

function newRepo(env: Record<string, string>) {
  const dir = tempDir("mcq-hookd-repo-");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  fs.writeFileSync(path.join(dir, "README.md"), "# demo\n");
  fs.writeFileSync(path.join(dir, "keep.py"), "def keep(a: int) -> int:\n    return a\n");
  git("add", "-A");
  git("commit", "-qm", "init", "--no-verify");
  return { dir, git, write: (file: string, text: string) => fs.writeFileSync(path.join(dir, file), text) };
}

const GOOD = (n: number) => `def add(a: int, b: int) -> int:\n    return a + b + ${n}\n`;
const BAD = "import os\n\n\ndef f() -> int:\n    return 1\n";

describe("hook pre-commit --daemon gives the in-process verdict", () => {
  const env = isolatedEnv();
  envs.push(env);
  let repo: ReturnType<typeof newRepo>;
  let out: string;

  beforeAll(() => {
    repo = newRepo(env);
    out = path.join(repo.dir, ".git", "both");
    const q = (s: string) => `'${s}'`;
    // Both ways on the same commit, in git's environment; the commit is refused so nothing changes.
    fs.writeFileSync(
      path.join(repo.dir, ".git", "hooks", "pre-commit"),
      [
        "#!/bin/sh",
        `o=${q(out)}`,
        'mkdir -p "$o"',
        'printf %s "$GIT_INDEX_FILE" > "$o/index"',
        `${q(process.execPath)} ${q(HOOK)} pre-commit --no-daemon 2> "$o/in.err"; echo $? > "$o/in.rc"`,
        `${q(process.execPath)} ${q(HOOK)} pre-commit --daemon 2> "$o/daemon.err"; echo $? > "$o/daemon.rc"`,
        // The native client, after the Node client started the daemon: the same answer, from that daemon.
        ...(FRONT_BUILT
          ? [`${q(FRONT)} hook pre-commit --daemon 2> "$o/native.err"; echo $? > "$o/native.rc"`]
          : []),
        "exit 1",
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
  });

  /** Runs `git commit args`, then the reset to HEAD; what each way said and exited with. */
  function both(...args: string[]) {
    fs.rmSync(out, { recursive: true, force: true });
    spawnSync("git", ["commit", "-m", "change", ...args], { cwd: repo.dir, env, encoding: "utf8" });
    const read = (f: string) => fs.readFileSync(path.join(out, f), "utf8");
    const r = {
      index: read("index"),
      in: { code: Number(read("in.rc")), stderr: read("in.err") },
      daemon: { code: Number(read("daemon.rc")), stderr: read("daemon.err") },
    };
    if (FRONT_BUILT)
      expect({ code: Number(read("native.rc")), stderr: read("native.err") }, "the native client").toEqual(
        r.daemon,
      );
    repo.git("reset", "-q", "--hard");
    repo.git("clean", "-qfd");
    return r;
  }

  it.skipIf(noRuff)("a passing commit", () => {
    repo.write("app.py", GOOD(1));
    repo.git("add", "app.py");
    const r = both();
    expect(r.in).toMatchObject({ code: 0 });
    expect(r.in.stderr).toContain("1 staged change(s) passed");
    expect(r.daemon).toEqual(r.in);
    const st = daemon(env, "--daemon-status");
    expect(st.status, st.stderr).toBe(0);
    expect(JSON.parse(st.stdout)).toMatchObject({ served: PER_COMMIT });
  });

  it.skipIf(noRuff)("a blocked commit (a lint error, a secret)", () => {
    repo.write("bad.py", BAD);
    repo.write("creds.py", 'AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Ha4Lm2b"\n');
    repo.git("add", "bad.py", "creds.py");
    const r = both();
    expect(r.in.code).toBe(1);
    expect(r.in.stderr).toContain("F401");
    expect(r.in.stderr).toContain("commit refused");
    expect(r.daemon).toEqual(r.in);
  });

  it.skipIf(noRuff)(
    "the daemon's kept engine follows the linter's configuration from commit to commit",
    () => {
      // A stricter configuration (docstrings required) staged with a file: refused for a missing docstring.
      repo.write("ruff.toml", '[lint]\nextend-select = ["D103"]\n');
      repo.write("app.py", GOOD(10));
      repo.git("add", "ruff.toml", "app.py");
      const strict = both();
      expect(strict.in.code).toBe(1);
      expect(strict.in.stderr).toContain("D103");
      expect(strict.daemon).toEqual(strict.in);
      // The next commit has no ruff.toml: the engine kept from the last one must not lint with it.
      repo.write("app.py", GOOD(10));
      repo.git("add", "app.py");
      const plain = both();
      expect(plain.in.code).toBe(0);
      expect(plain.daemon).toEqual(plain.in);
    },
  );

  it.skipIf(noRuff)("a lint error staged while the work tree is fixed: read from the commit's index", () => {
    repo.write("bad.py", BAD);
    repo.git("add", "bad.py");
    repo.write("bad.py", GOOD(2));
    const r = both();
    expect(r.in.code).toBe(1);
    expect(r.in.stderr).toContain("F401");
    expect(r.daemon).toEqual(r.in);
  });

  it.skipIf(noRuff)("a partial commit judges git's temporary index, not the daemon's", () => {
    // The real index holds a blocked change; `git commit -- app.py` commits app.py alone.
    repo.write("bad.py", BAD);
    repo.git("add", "bad.py");
    repo.write("keep.py", GOOD(3));
    const passing = both("--", "keep.py");
    expect(passing.index).toMatch(/next-index/);
    expect(passing.in.code).toBe(0);
    expect(passing.in.stderr).toContain("1 staged change(s) passed");
    expect(passing.daemon).toEqual(passing.in);

    // The reverse: a good change staged, the partial commit of a bad file is refused, and only it is named.
    repo.write("app.py", GOOD(4));
    repo.git("add", "app.py");
    repo.write("keep.py", BAD);
    const refused = both("--", "keep.py");
    expect(refused.index).toMatch(/next-index/);
    expect(refused.in.code).toBe(1);
    expect(refused.in.stderr).toContain("keep.py:1:8: F401");
    expect(refused.in.stderr).not.toContain("app.py");
    expect(refused.daemon).toEqual(refused.in);
  });

  it.skipIf(noRuff)("another index named by GIT_INDEX_FILE: the staged text is read from it", () => {
    // The default index stages a good app.py, the other one a bad one, the work tree holds a third text:
    // lint_check reads the staged text with `git show :app.py`, which must read the index the hook was given.
    repo.write("app.py", GOOD(7));
    repo.git("add", "app.py");
    fs.copyFileSync(path.join(repo.dir, ".git", "index"), path.join(repo.dir, ".git", "alt-index"));
    repo.write("app.py", BAD);
    // As git runs a hook (its exec path first on PATH): the daemon of the other cases.
    const alt = {
      ...env,
      PATH: `${GIT_EXEC_PATH}:${env.PATH}`,
      GIT_INDEX_FILE: path.join(repo.dir, ".git", "alt-index"),
    };
    execFileSync("git", ["add", "app.py"], { cwd: repo.dir, env: alt });
    repo.write("app.py", GOOD(8));
    const run = (flag: string) =>
      spawnSync(process.execPath, [HOOK, "pre-commit", flag], { cwd: repo.dir, env: alt, encoding: "utf8" });
    const inProcess = run("--no-daemon");
    const viaDaemon = run("--daemon");
    repo.git("reset", "-q", "--hard");
    expect(inProcess.status).toBe(1);
    expect(inProcess.stderr).toContain("app.py:1:8: F401");
    expect({ code: viaDaemon.status, stderr: viaDaemon.stderr }).toEqual({
      code: inProcess.status,
      stderr: inProcess.stderr,
    });
  });

  it.skipIf(noRuff)(
    "--files (the pre-commit framework's way): the staged files (the framework stashes the rest)",
    () => {
      repo.write("creds.py", 'AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Ha4Lm2b"\n');
      repo.write("app.py", GOOD(9));
      repo.git("add", "creds.py", "app.py");
      const hookEnv = { ...env, PATH: `${GIT_EXEC_PATH}:${env.PATH}` };
      const run = (flag: string) =>
        spawnSync(process.execPath, [HOOK, "pre-commit", flag, "--files", "creds.py", "app.py"], {
          cwd: repo.dir,
          env: hookEnv,
          encoding: "utf8",
        });
      const inProcess = run("--no-daemon");
      const viaDaemon = run("--daemon");
      repo.git("reset", "-q", "--hard");
      repo.git("clean", "-qfd");
      expect(inProcess.status).toBe(1);
      // Judged as the staged change, per file (src/hooks/staged-judge.ts).
      expect(inProcess.stderr).toContain("creds.py: secrets.");
      expect({ code: viaDaemon.status, stderr: viaDaemon.stderr }).toEqual({
        code: inProcess.status,
        stderr: inProcess.stderr,
      });
    },
  );

  it.skipIf(noRuff)("one daemon serves every commit: git's per-commit variables are not in its key", () => {
    const before = JSON.parse(daemon(env, "--daemon-status").stdout) as { pid: number; served: number };
    repo.write("app.py", GOOD(5));
    repo.git("add", "app.py");
    // Another author date: per commit, not another daemon.
    const r = spawnSync("git", ["commit", "-m", "x", "--date", "2001-01-01T00:00:00"], {
      cwd: repo.dir,
      env,
      encoding: "utf8",
    });
    expect(r.status).toBe(1);
    repo.git("reset", "-q", "--hard");
    expect(JSON.parse(daemon(env, "--daemon-status").stdout)).toMatchObject({
      pid: before.pid,
      served: before.served + PER_COMMIT,
    });
  });
});

describe("hook pre-commit --daemon with a variable that would weaken the daemon", () => {
  const env = isolatedEnv();
  envs.push(env);

  it.skipIf(noRuff)(
    "the human's confirmation (MCQ_ALLOW_PROTECTED) or `git -c`: the hook runs in its own process",
    () => {
      const repo = newRepo(env);
      repo.write("bad.py", BAD);
      repo.git("add", "bad.py");
      // As git runs a hook: its exec path first on PATH, its GIT_EXEC_PATH and GIT_EDITOR.
      const hookEnv = { ...env, PATH: `${GIT_EXEC_PATH}:${env.PATH}`, GIT_EXEC_PATH, GIT_EDITOR: ":" };
      const run = (extra: Record<string, string>, ...flag: string[]) =>
        spawnSync(process.execPath, [HOOK, "pre-commit", ...flag], {
          cwd: repo.dir,
          env: { ...hookEnv, ...extra },
          encoding: "utf8",
        });
      // Through the daemon when nothing weakens it (and the daemon is up).
      const plain = run({}, "--daemon");
      expect(plain.status).toBe(1);
      const served = () => (JSON.parse(daemon(env, "--daemon-status").stdout) as { served: number }).served;
      const before = served();
      for (const [extra, why] of [
        [
          { MCQ_ALLOW_PROTECTED: "1" },
          "MCQ_ALLOW_PROTECTED (the human's confirmation is given in the hook's own process)",
        ],
        [
          { GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='false'" },
          "GIT_CONFIG_PARAMETERS (git would run a program, read other config or write a file with it)",
        ],
      ] as const) {
        const inProcess = run(extra, "--no-daemon");
        const viaClient = run(extra, "--daemon");
        expect(inProcess.status).toBe(1);
        expect(inProcess.stderr).toContain("F401");
        expect(viaClient.status).toBe(inProcess.status);
        expect(viaClient.stderr).toBe(
          `mcp-code-quality pre-commit: --daemon: not used: the daemon refuses ${why}; running the hook in this process\n${inProcess.stderr}`,
        );
        // The native client asks; refused, it leaves the hook to the Node one, printing nothing.
        if (FRONT_BUILT)
          expect(
            spawnSync(FRONT, ["hook", "pre-commit", "--daemon"], {
              cwd: repo.dir,
              env: { ...hookEnv, ...extra },
              encoding: "utf8",
            }),
          ).toMatchObject({ status: MISS, stdout: "", stderr: "" });
      }
      // The Node client never sent them; the native one did, and was refused.
      expect(served()).toBe(before + (FRONT_BUILT ? 2 : 0));
    },
  );
});

describe("hook pre-commit --daemon when the daemon cannot serve", () => {
  it.skipIf(noRuff)("runs the hook in its own process, with a note, to the same verdict", () => {
    const env = isolatedEnv();
    delete env.XDG_RUNTIME_DIR;
    // Where the daemon folder would be, a file: no daemon can live there.
    fs.writeFileSync(path.join(env.TMPDIR!, `mcq-daemon-${process.getuid?.() ?? 0}`), "");
    const repo = newRepo(env);
    repo.write("bad.py", BAD);
    repo.git("add", "bad.py");
    const run = (...flag: string[]) =>
      spawnSync(process.execPath, [HOOK, "pre-commit", ...flag], { cwd: repo.dir, env, encoding: "utf8" });
    const inProcess = run();
    const viaClient = run("--daemon");
    expect(inProcess.status).toBe(1);
    expect(viaClient.status).toBe(inProcess.status);
    const note = viaClient.stderr.split("\n")[0];
    expect(note).toMatch(
      /^mcp-code-quality pre-commit: --daemon: not used: .* running the hook in this process$/,
    );
    expect(viaClient.stderr).toBe(`${note}\n${inProcess.stderr}`);
    // The native client leaves it to the Node one, printing nothing.
    if (FRONT_BUILT)
      expect(
        spawnSync(FRONT, ["hook", "pre-commit", "--daemon"], { cwd: repo.dir, env, encoding: "utf8" }),
      ).toMatchObject({ status: MISS, stdout: "", stderr: "" });
  });
});

describe("hook install pre-commit --daemon", () => {
  it.skipIf(noRuff)("installs the client line; a commit passes or is refused through the daemon", () => {
    const env = isolatedEnv();
    envs.push(env);
    const repo = newRepo(env);
    const installed = spawnSync(
      process.execPath,
      [CLI, "hook", "install", "pre-commit", "--daemon", "--project", repo.dir],
      { env, encoding: "utf8" },
    );
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toContain("verified");
    const line = fs.readFileSync(path.join(repo.dir, ".git", "hooks", "pre-commit"), "utf8").split("\n")[1];
    expect(line).toContain(`${HOOK}' pre-commit --daemon`);
    if (FRONT_BUILT) expect(line).toContain(`'${FRONT}' hook pre-commit --daemon`);
    // The install's probe answered in the process: it started no daemon.
    expect(daemon(env, "--daemon-status").status).toBe(1);

    repo.write("app.py", GOOD(6));
    repo.git("add", "app.py");
    const ok = spawnSync("git", ["commit", "-qm", "ok"], { cwd: repo.dir, env, encoding: "utf8" });
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stderr).toContain("1 staged change(s) passed");
    repo.write("bad.py", BAD);
    repo.git("add", "bad.py");
    const no = spawnSync("git", ["commit", "-qm", "no"], { cwd: repo.dir, env, encoding: "utf8" });
    expect(no.status).toBe(1);
    expect(no.stderr).toContain("F401");
    expect(JSON.parse(daemon(env, "--daemon-status").stdout)).toMatchObject({ served: 2 });
    // The install's probe never reaches the daemon, the native client's neither.
    if (FRONT_BUILT) {
      const probe = spawnSync(FRONT, ["hook", "pre-commit", "--daemon"], {
        cwd: repo.dir,
        env: { ...env, PATH: `${GIT_EXEC_PATH}:${env.PATH}`, MCP_CODE_QUALITY_HOOK_PROBE: "1" },
        encoding: "utf8",
      });
      expect(probe).toMatchObject({ status: MISS, stdout: "", stderr: "" });
      expect(JSON.parse(daemon(env, "--daemon-status").stdout)).toMatchObject({ served: 2 });
    }
  });
});

describe("the hook's daemon request (pure parts)", () => {
  it("--daemon / --no-daemon before the hook's arguments, the last winning; the env var; the probe", () => {
    expect(hookDaemonChoice(["--daemon"], {})).toEqual({ daemon: true, argv: [] });
    expect(hookDaemonChoice(["--daemon", "--no-daemon"], {})).toEqual({ daemon: false, argv: [] });
    expect(hookDaemonChoice([], { MCP_CODE_QUALITY_CHECK_DAEMON: "1" })).toEqual({ daemon: true, argv: [] });
    expect(hookDaemonChoice(["--no-daemon"], { MCP_CODE_QUALITY_CHECK_DAEMON: "1" }).daemon).toBe(false);
    expect(hookDaemonChoice(["--daemon", "--files", "--daemon"], {})).toEqual({
      daemon: true,
      argv: ["--files", "--daemon"],
    });
    expect(hookDaemonChoice(["--daemon"], { MCP_CODE_QUALITY_HOOK_PROBE: "x" }).daemon).toBe(false);
  });

  it("git's and the human's per-commit variables travel with the request, the rest decides the daemon", () => {
    const env = { PATH: "/bin", HOME: "/h", GIT_INDEX_FILE: ".git/index", MCQ_ALLOW_PROTECTED: "1" };
    expect(splitPerCommit(env)).toEqual({
      shared: { PATH: "/bin", HOME: "/h" },
      perCommit: { GIT_INDEX_FILE: ".git/index", MCQ_ALLOW_PROTECTED: "1" },
    });
    expect(isPerCommitVar("GIT_AUTHOR_DATE")).toBe(true);
    expect(isPerCommitVar("PATH")).toBe(false);
    // The daemon's own git variables never reach a request: the client's do.
    expect(
      requestEnv({ PATH: "/bin", GIT_INDEX_FILE: "/stale", GIT_DIR: "/x" }, { GIT_INDEX_FILE: "/tmp-index" }),
    ).toEqual({ PATH: "/bin", GIT_INDEX_FILE: "/tmp-index" });
  });

  it("a request that would set any other variable is not one", () => {
    const ask = { type: "pre-commit", argv: [], cwd: "/r", buildId: "b", proof: "p" };
    expect(parseRequest(JSON.stringify({ ...ask, env: { GIT_INDEX_FILE: "i" } }))).toEqual({
      ...ask,
      env: { GIT_INDEX_FILE: "i" },
    });
    expect(parseRequest(JSON.stringify({ ...ask, env: { PATH: "/evil" } }))).toBeUndefined();
    expect(parseRequest(JSON.stringify({ ...ask, env: { GIT_DIR: 1 } }))).toBeUndefined();
    expect(parseRequest(JSON.stringify({ ...ask, cwd: "rel", env: {} }))).toBeUndefined();
  });
});
