/**
 * A check request may not weaken the daemon (a red team's run): project code that read the daemon's secret
 * asked it for `check --sandbox off` of another project, whose `eslint.config.js` then ran as root outside
 * any sandbox. The daemon refuses a request that turns the sandbox down, names its own allowed paths, or an
 * audit log that is not a .log/.jsonl file; the client runs such a check in its own process (the user's own choice). Real CLI processes, a
 * real daemon, its real socket and secret; the project's planted tool reports whether it ran sandboxed.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { newNonce, proofOf } from "../../src/check/daemon/auth.js";
import { frame, LineReader, parseHelloAnswer } from "../../src/check/daemon/protocol.js";
import { refusalOf } from "../../src/check/daemon/relax.js";
import { CHECK_FIXTURES, runCheck } from "../helpers/check.js";
import { copyFixture, missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { REPO_ROOT } from "../helpers/server.js";

const noRuff = missing("ruff", [TOOLS_VENV_BIN]);
const envs: Record<string, string | undefined>[] = [];

afterEach(async () => {
  for (const env of envs.splice(0)) await runCheck(["--daemon-stop"], { env });
});

/** A folder outside every allowed path: no sandbox shows it. */
const marker = tempDir("mcq-weaken-marker-");

/** A Python project whose `.venv/bin/ruff` says whether it sees `marker`. */
function projectWithRuff(): string {
  const project = tempDir("mcq-weaken-proj-");
  fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "p"\n');
  fs.writeFileSync(path.join(project, "app.py"), "x = 1\n");
  const bin = path.join(project, ".venv", "bin");
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, "python"), "");
  fs.writeFileSync(
    path.join(bin, "ruff"),
    `#!${process.execPath}
if (process.argv.includes("--version")) { console.log("ruff 0.17.6"); process.exit(0); }
const sandboxed = !require("node:fs").existsSync(${JSON.stringify(marker)});
console.log(JSON.stringify({ code: "X1", message: sandboxed ? "SANDBOXED" : "UNSANDBOXED", filename: "app.py", location: { row: 1, column: 1 } }));
`,
    { mode: 0o755 },
  );
  return project;
}

/** Sends one check request with the daemon's secret, as the red team's script did; its frames. */
function ask(socket: string, argv: string[], cwd: string): Promise<Record<string, unknown>[]> {
  return send(socket, { type: "check", argv, cwd, stdoutTTY: false, stderrTTY: false });
}

/** Sends one request of any kind (its build id and proof added) with the daemon's secret; its frames. */
function send(socket: string, request: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const secret = fs.readFileSync(path.join(path.dirname(socket), "secret"));
  const buildId = (
    JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "dist", "build-id.json"), "utf8")) as {
      id: string;
    }
  ).id;
  return new Promise((resolve) => {
    const c = net.connect(socket);
    c.setEncoding("utf8");
    const nonce = newNonce();
    const frames: Record<string, unknown>[] = [];
    let sent = false;
    const reader = new LineReader((line) => {
      const hello = parseHelloAnswer(line);
      if (!sent && hello) {
        sent = true;
        const proof = proofOf(secret, "client", path.basename(socket), nonce, hello.nonce);
        c.write(frame({ ...request, buildId, proof } as never));
      } else frames.push(JSON.parse(line) as Record<string, unknown>);
    });
    c.on("connect", () => c.write(frame({ type: "hello", nonce } as never)));
    c.on("data", (d: string) => reader.push(d));
    c.on("close", () => resolve(frames));
    c.on("error", () => {});
  });
}

describe("a check request that would weaken the daemon", () => {
  it.skipIf(noRuff)("is refused by the daemon, and run by the client in its own process", async () => {
    const env = {
      TMPDIR: tempDir("mcq-weaken-tmp-"),
      XDG_RUNTIME_DIR: tempDir("mcq-weaken-run-"),
      MCP_CODE_QUALITY_SANDBOX: "required",
    };
    envs.push(env);
    const fixture = copyFixture(path.join(CHECK_FIXTURES, "python"));
    expect(
      (await runCheck(["--daemon", "--only", "ruff", "--json", "."], { cwd: fixture, env })).status,
    ).toBe(1);
    const st = await runCheck(["--daemon-status"], { env });
    const socket = (JSON.parse(st.stdout) as { socket: string }).socket;
    const project = projectWithRuff();
    const text = (frames: Record<string, unknown>[]) => frames.map((f) => String(f.o ?? f.e ?? "")).join("");
    const exit = (frames: Record<string, unknown>[]) => frames.find((f) => "exit" in f)?.exit;

    // The same request as the daemon's own: served, sandboxed.
    const served = await ask(socket, ["--only", "ruff", "--json", project], project);
    expect(text(served)).toContain("SANDBOXED");
    expect(text(served)).not.toContain("UNSANDBOXED");
    for (const weaker of [
      ["--sandbox", "off"],
      ["--sandbox=auto"],
      ["--allowed-paths", "/"],
      // Appended as the daemon's user: a shell's startup file would run a request's path strings.
      ["--audit-log", path.join(project, ".bashrc")],
    ]) {
      const frames = await ask(socket, [...weaker, "--only", "ruff", "--json", project], project);
      expect(text(frames), weaker.join(" ")).toContain("the check daemon refuses");
      expect(text(frames)).not.toContain("SANDBOXED");
      expect(exit(frames)).toBe(2);
    }
    expect(fs.existsSync(path.join(project, ".bashrc"))).toBe(false);

    // The user's own `check --daemon --sandbox off`: run here, as without --daemon.
    const own = await runCheck(["--daemon", "--sandbox", "off", "--only", "ruff", "--json", "."], {
      cwd: project,
      env,
    });
    expect(own.stderr).toContain("not used: the daemon refuses --sandbox off");
    expect(own.stdout).toContain("UNSANDBOXED");
  });
});

describe("a hook pre-commit request that would weaken the daemon", () => {
  it("is refused at the daemon's entry, before it runs, as a check's is", async () => {
    const env = {
      TMPDIR: tempDir("mcq-weaken-tmp-"),
      XDG_RUNTIME_DIR: tempDir("mcq-weaken-run-"),
      MCP_CODE_QUALITY_SANDBOX: "required",
    };
    envs.push(env);
    const fixture = copyFixture(path.join(CHECK_FIXTURES, "python"));
    await runCheck(["--daemon", "--only", "ruff", "--json", "."], { cwd: fixture, env });
    const socket = (JSON.parse((await runCheck(["--daemon-status"], { env })).stdout) as { socket: string })
      .socket;
    const repo = tempDir("mcq-weaken-repo-");
    execFileSync("git", ["init", "-q"], { cwd: repo });
    const pwned = path.join(marker, "fsmonitor-ran");
    const gitExecPath = execFileSync("git", ["--exec-path"], { encoding: "utf8" }).trim();
    const hook = (perCommit: Record<string, string>, argv: string[] = []) =>
      send(socket, {
        type: "pre-commit",
        argv,
        cwd: repo,
        env: { GIT_INDEX_FILE: ".git/index", ...perCommit },
      });
    for (const [perCommit, argv, why] of [
      [{ MCQ_ALLOW_PROTECTED: "1" }, [], "MCQ_ALLOW_PROTECTED"],
      [
        {
          GIT_CONFIG_COUNT: "1",
          GIT_CONFIG_KEY_0: "core.fsmonitor",
          GIT_CONFIG_VALUE_0: `touch ${pwned}`,
        },
        [],
        "GIT_CONFIG_COUNT",
      ],
      [{ GIT_CONFIG_PARAMETERS: `'core.fsmonitor'='touch ${pwned}'` }, [], "GIT_CONFIG_PARAMETERS"],
      [{ GIT_EXEC_PATH: repo }, [], "GIT_EXEC_PATH"],
      [{ GIT_TRACE: path.join(repo, ".bashrc") }, [], "GIT_TRACE"],
      [{}, ["--sandbox", "off", "--files", "a.py"], "--sandbox off"],
    ] as const) {
      const frames = await hook(perCommit, [...argv]);
      expect(frames[0], why).toEqual({ refused: expect.stringContaining(why) });
      expect(frames.map((f) => String(f.e ?? "")).join("")).toContain("the check daemon refuses");
      expect(frames.at(-1)).toEqual({ exit: 1 });
    }
    expect(fs.existsSync(pwned)).toBe(false);
    expect(fs.existsSync(path.join(repo, ".bashrc"))).toBe(false);
    // What git itself sets for a commit passes: the hook runs (nothing staged: it lets the commit through).
    const served = await hook({ GIT_EDITOR: ":", GIT_EXEC_PATH: gitExecPath, GIT_PREFIX: "" });
    expect(served.some((f) => "refused" in f)).toBe(false);
    expect(served.at(-1)).toEqual({ exit: 0 });
  });
});

describe("refusalOf, for every kind of request", () => {
  it("refuses what weakens the daemon's environment, passes the rest", () => {
    const own = { MCP_CODE_QUALITY_SANDBOX: "required", MCP_CODE_QUALITY_TIMEOUT: "60" };
    const check = (argv: string[]) =>
      refusalOf({ type: "check", argv, cwd: "/p", stdoutTTY: false, stderrTTY: false, buildId: "b" }, own);
    expect(check(["--timeout", "30", "."])).toBeUndefined();
    expect(check(["--timeout", "3600", "."])).toContain("--timeout 3600");
    expect(check(["--sandbox", "auto"])).toContain("--sandbox auto");
    const hook = (env: Record<string, string>, argv: string[] = []) =>
      refusalOf({ type: "pre-commit", argv, cwd: "/p", env, buildId: "b" }, own);
    expect(
      hook({ GIT_INDEX_FILE: "/p/.git/index.lock", GIT_EDITOR: ":", GIT_AUTHOR_NAME: "a" }),
    ).toBeUndefined();
    expect(hook({ GIT_TRACE: "1", MCQ_ALLOW_PROTECTED: "" })).toBeUndefined();
    expect(hook({ GIT_EDITOR: "vim" })).toContain("GIT_EDITOR");
    expect(hook({ GIT_SSH_COMMAND: "x" })).toContain("GIT_SSH_COMMAND");
    expect(hook({ GIT_CONFIG_KEY_3: "core.fsmonitor" })).toContain("GIT_CONFIG_KEY_3");
    // After --files come file names, which the hook reads as such.
    expect(hook({}, ["--files", "--sandbox", "off"])).toBeUndefined();
    expect(hook({}, ["--allowed-paths", "/"])).toContain("--allowed-paths");
    expect(refusalOf({ type: "status" }, own)).toBeUndefined();
    expect(refusalOf({ type: "stop" }, own)).toBeUndefined();
  });
});
