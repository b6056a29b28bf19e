/**
 * The check daemon under a project whose configuration spins: another project's check is answered while the
 * slow one runs (requests of different projects run at once, turns.ts), and a warm worker's work for one
 * request is bounded by the request's timeout and by --tool-max-cpu-seconds, as a one-shot tool run is: the
 * worker is killed with its process group and the next request gets a new one. Real clients (the built CLI),
 * a real daemon, real ESLint workers loading a real busy-looping eslint.config.js, real ruff.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Turns, overlaps } from "../../src/check/daemon/turns.js";
import { statCpu, treeCpuMs, watchCpu } from "../../src/exec/cpu-time.js";
import { CHECK_FIXTURES, runCheck, type CheckJson } from "../helpers/check.js";
import {
  alive,
  daemonStatus as status,
  isolatedEnv,
  stopDaemons,
  timeless,
  until,
} from "../helpers/check-daemon.js";
import { copyFixture, missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const noRuff = missing("ruff", [TOOLS_VENV_BIN]);

afterEach(stopDaemons);

/** A JavaScript project whose eslint.config.js runs `body` when ESLint loads it. */
function projectWithConfig(body: string): string {
  const dir = tempDir("mcq-spin-");
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "spin", "private": true, "type": "module" }\n');
  fs.writeFileSync(path.join(dir, "a.js"), "export const x = 1;\n");
  fs.writeFileSync(path.join(dir, "eslint.config.js"), `${body}\nexport default [];\n`);
  return dir;
}

const json = (stdout: string) => JSON.parse(stdout) as CheckJson;
/** The worker's pid a failed ESLint check names. */
const workerPid = (reason: string | undefined) => Number(/\(pid (\d+)\)/.exec(reason ?? "")?.[1]);

/** A config that spins for this long, then loads: a slow project. */
const SPIN_MS = 20_000;

describe("check --daemon with a slow project", () => {
  it.skipIf(noRuff)("answers another project's check while the slow project's check runs", async () => {
    const env = isolatedEnv();
    const fast = copyFixture(path.join(CHECK_FIXTURES, "python"));
    const ruff = ["--daemon", "--only", "ruff", "--json", "."];
    const first = await runCheck(ruff, { cwd: fast, env });
    expect(first.status).toBe(1);
    const slow = projectWithConfig(`const end = Date.now() + ${SPIN_MS}; while (Date.now() < end) {}`);
    const started = Date.now();
    let slowEnded = 0;
    const slowRun = runCheck(["--daemon", "--only", "eslint", "--json", "."], { cwd: slow, env }).then(
      (r) => {
        slowEnded = Date.now();
        return r;
      },
    );
    // The slow check has its turn: its worker is loading the spinning config.
    await until(async () => (await status(env))?.running === 1);
    const asked = Date.now();
    const fastRun = await runCheck(ruff, { cwd: fast, env });
    const answered = Date.now();
    expect(slowEnded, "the fast check was answered after the slow one ended").toBe(0);
    expect(timeless(fastRun)).toEqual(timeless(first));
    const slowResult = await slowRun;
    expect(slowResult.status, slowResult.stderr).toBe(0);
    expect(json(slowResult.stdout).checks[0]).toMatchObject({ id: "eslint", status: "passed" });
    expect(slowEnded - started).toBeGreaterThanOrEqual(SPIN_MS);
    console.log(
      `fast check answered in ${answered - asked} ms while the slow one ran (${slowEnded - started} ms)`,
    );
    expect(await status(env)).toMatchObject({ served: 3, running: 0, waiting: 0 });
  });
});

describe("a warm worker's request is bounded", () => {
  it("by --tool-max-cpu-seconds: a spinning config's worker is killed at that much CPU, and replaced", async () => {
    const env = isolatedEnv();
    const dir = projectWithConfig("for (;;) {}");
    const args = ["--tool-max-cpu-seconds", "2", "--timeout", "60", "--only", "eslint", "--json", "."];
    for (const daemon of [["--daemon"], []]) {
      const started = Date.now();
      const r = await runCheck([...daemon, ...args], { cwd: dir, env });
      const took = Date.now() - started;
      expect(r.status, r.stderr).toBe(3);
      const check = json(r.stdout).checks[0];
      expect(check).toMatchObject({ status: "failed", error_type: "tool_error" });
      expect(check?.reason).toMatch(
        /eslint worker \(pid \d+\) used more than its CPU limit of 2 s for one request \(--tool-max-cpu-seconds\) and was killed with its process group/,
      );
      // Killed at its CPU, long before the timeout, with its process group.
      expect(took).toBeLessThan(30_000);
      const pid = workerPid(check?.reason);
      await until(() => !alive(pid));
      console.log(`${daemon.length ? "daemon" : "direct"}: CPU limit 2 s, answered in ${took} ms`);
    }
    // The config fixed: the daemon's next request gets a new worker, which answers.
    fs.writeFileSync(path.join(dir, "eslint.config.js"), "export default [];\n");
    const next = await runCheck(["--daemon", ...args], { cwd: dir, env });
    expect(next.status, next.stderr).toBe(0);
  });

  it("by the timeout: the worker is killed with its process group, and the next request gets a new one", async () => {
    const env = isolatedEnv();
    const dir = projectWithConfig("for (;;) {}");
    const args = ["--daemon", "--timeout", "4", "--only", "eslint", "--json", "."];
    const first = await runCheck(args, { cwd: dir, env });
    const reason = json(first.stdout).checks[0]?.reason;
    expect(reason).toMatch(/eslint worker \(pid \d+\) exceeded the 4 s timeout and was killed/);
    const pid = workerPid(reason);
    await until(() => !alive(pid));
    const second = await runCheck(args, { cwd: dir, env });
    const again = workerPid(json(second.stdout).checks[0]?.reason);
    expect(again).toBeGreaterThan(0);
    expect(again).not.toBe(pid);
  });
});

describe("the daemon's turns (pure)", () => {
  const tick = () => new Promise((r) => setImmediate(r));

  it("runs different projects at once, one project's requests in order, within the bound", async () => {
    const turns = new Turns(2);
    const log: string[] = [];
    const take = (name: string, ...keys: string[]) =>
      turns.take(keys).then((end) => {
        log.push(name);
        return end;
      });
    const a = take("a", "/p");
    const b = take("b", "/p/sub"); // inside /p: waits for a
    const c = take("c", "/q");
    const d = take("d", "/r"); // no slot left
    await tick();
    expect(log).toEqual(["a", "c"]);
    expect(turns.counts).toEqual({ running: 2, waiting: 2 });
    (await c)();
    await tick();
    // d's folder is free and a slot too: it does not wait behind b, which waits for a.
    expect(log).toEqual(["a", "c", "d"]);
    (await a)();
    (await d)();
    await tick();
    expect(log).toEqual(["a", "c", "d", "b"]);
    (await b)();
    expect(turns.counts).toEqual({ running: 0, waiting: 0 });
  });

  it("keeps one folder's order: a later request of it never passes an earlier one", async () => {
    const turns = new Turns(1);
    const log: string[] = [];
    const first = await turns.take(["/p"]);
    const other = turns.take(["/q"]).then((end) => (log.push("q"), end));
    const again = turns.take(["/p"]).then((end) => (log.push("p"), end));
    first();
    await tick();
    expect(log).toEqual(["q"]);
    (await other)();
    await tick();
    expect(log).toEqual(["q", "p"]);
    (await again)();
  });

  it("drops a request whose client went away while it waited", async () => {
    const turns = new Turns(1);
    const end = await turns.take(["/p"]);
    const abort = new AbortController();
    const waiting = turns.take(["/q"], abort.signal);
    abort.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    expect(turns.counts).toEqual({ running: 1, waiting: 0 });
    end();
    end(); // once is enough
    expect(turns.counts).toEqual({ running: 0, waiting: 0 });
  });

  it("folders overlap when one is the other or holds it", () => {
    expect(overlaps("/p", "/p")).toBe(true);
    expect(overlaps("/p", "/p/a")).toBe(true);
    expect(overlaps("/p/a", "/p")).toBe(true);
    expect(overlaps("/p", "/pa")).toBe(false);
    expect(overlaps("/", "/x")).toBe(true);
  });
});

describe("cpu-time (the CPU of a process tree, from /proc)", () => {
  it("reads a stat line whose command name holds spaces and parentheses", () => {
    const stat = "42 (a (b) c) R 7 42 42 0 -1 0 0 0 0 0 150 25 3 2 20 0 1 0 100 0 0";
    expect(statCpu(stat)).toEqual({ ppid: 7, ticks: 180 });
    expect(statCpu("garbage")).toBeUndefined();
  });

  it("counts a spinning grandchild's CPU under the process that started it", async () => {
    // sh waits for a Node that spins: the CPU is the grandchild's, read from the shell's pid.
    const spin = `${JSON.stringify(process.execPath)} -e "for(;;){}" & wait`;
    const sh = spawn("sh", ["-c", spin], { stdio: "ignore", detached: true });
    try {
      await until(() => treeCpuMs(sh.pid!) >= 500, 20_000);
      expect(treeCpuMs(sh.pid!)).toBeGreaterThanOrEqual(500);
    } finally {
      process.kill(-sh.pid!, "SIGKILL");
    }
  });

  it("watchCpu: past the seconds used from its start on (not before), once", async () => {
    const spinner = spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" });
    try {
      await until(() => treeCpuMs(spinner.pid!) >= 500, 20_000);
      let calls = 0;
      const at: number[] = [];
      const stop = watchCpu(spinner.pid!, 0.5, () => {
        calls++;
        at.push(treeCpuMs(spinner.pid!));
      });
      const from = treeCpuMs(spinner.pid!);
      await until(() => calls > 0, 20_000);
      await new Promise((r) => setTimeout(r, 600));
      stop();
      expect(calls).toBe(1);
      expect(at[0]! - from).toBeGreaterThanOrEqual(500);
      expect(watchCpu(spinner.pid!, 0, () => calls++)).toBeTypeOf("function");
    } finally {
      spinner.kill("SIGKILL");
    }
  });
});
