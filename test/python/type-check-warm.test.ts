/**
 * Warm Python type checks through the real server: mypy through its daemon and pyright through its language server.
 * An edit between two warm checks is seen (and matches the tool run cold on the same files); a daemon
 * killed from outside is replaced on the next call; a mypy config change restarts the daemon; a daemon
 * past the time limit is killed with its group; after the server exits no process of theirs is left
 * (walking /proc) and their temp folders are gone.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMypyOutput } from "../../src/adapters/python/mypy.js";
import { parsePyrightJson } from "../../src/adapters/python/pyright.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir } from "../helpers/tools.js";

const FIXTURE = path.join(FIXTURES, "python", "configured-project");
const PYRIGHT = createRequire(import.meta.url).resolve("pyright");

interface Shown {
  file: string;
  line: number;
  rule_id: string;
  message: string;
}
const keys = (fs: Shown[]) => fs.map((f) => [f.file, f.line, f.rule_id, f.message].join("|")).sort();

function direct(program: string, args: string[], cwd: string): string {
  try {
    return execFileSync(program, args, { cwd, encoding: "utf8" });
  } catch (err) {
    return (err as { stdout: string }).stdout;
  }
}
const coldMypy = (project: string) =>
  parseMypyOutput(direct("mypy", ["--cache-dir", "/dev/null"], project), project);
const coldPyright = (project: string) =>
  parsePyrightJson(direct(process.execPath, [PYRIGHT, "--outputjson"], project)) ?? [];

/** The pid a warm-process note names. */
function pidOf(notes: unknown, tool: "mypy" | "pyright"): number {
  const note = (notes as string[]).find((n) =>
    n.includes(tool === "mypy" ? "mypy daemon" : "pyright language server"),
  );
  const m = /pid (\d+)/.exec(note ?? "");
  if (!m) throw new Error(`no ${tool} warm note in ${JSON.stringify(notes)}`);
  return Number(m[1]);
}

/** Live processes (not zombies) whose pid or process group is one of `pids`. */
function survivors(pids: number[]): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const state = fields[0];
      const pgid = Number(fields[2]);
      if (state !== "Z" && (pids.includes(Number(entry)) || pids.includes(pgid))) found.push(Number(entry));
    } catch {
      // Gone while reading.
    }
  }
  return found;
}

describe.skipIf(missing("mypy") || missing("dmypy"))("warm type checks", () => {
  let project: string;
  let cache: string;
  let s: Connected;
  const seen = new Set<number>();
  /** The server's own temp folder (TMPDIR), so that what it leaves there can be seen. */
  let serverTmp: string;
  beforeAll(async () => {
    project = copyFixture(FIXTURE);
    cache = tempDir("mcq-xdg-");
    serverTmp = tempDir("mcq-server-tmp-");
    s = await connectStdio({
      args: ["--allowed-paths", project],
      cwd: project,
      env: { XDG_CACHE_HOME: cache, TMPDIR: serverTmp },
    });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(cache, { recursive: true, force: true });
    fs.rmSync(serverTmp, { recursive: true, force: true });
  });

  const cart = () => path.join(project, "src", "shop", "cart.py");
  const scratchName = `mcq-${process.getuid?.() ?? "user"}`;
  const dmypyDirs = () => {
    const scratch = path.join(serverTmp, scratchName);
    return fs.existsSync(scratch) ? fs.readdirSync(scratch).filter((d) => d.startsWith("mcq-dmypy-")) : [];
  };

  it("mypy: the second check is warm, and an edit between two warm checks is seen", async () => {
    // The server's per-user scratch folder (exec/sandbox/scratch.ts) at most, and nothing in it yet.
    expect(fs.readdirSync(serverTmp).filter((d) => d !== scratchName)).toEqual([]);
    expect(dmypyDirs()).toEqual([]);
    const first = await s.call("type_check", { path: ".", checker: "mypy" });
    expect(first.notes).toContainEqual(
      expect.stringMatching(/^mypy daemon \(dmypy [\d.]+\) started, pid \d+/),
    );
    const pid = pidOf(first.notes, "mypy");
    seen.add(pid);
    // Its status file and socket folder are in the server's per-user scratch folder under its temp folder.
    expect(dmypyDirs().length).toBe(1);
    const second = await s.call("type_check", { path: ".", checker: "mypy" });
    expect(second.notes).toContainEqual(`warm mypy daemon (dmypy 1.0.1) pid ${pid}, request 2`);
    expect(keys(second.findings as Shown[])).toEqual(keys(first.findings as Shown[]));

    fs.appendFileSync(cart(), "\n\ndef broken() -> int:\n    return 'no'\n");
    const edited = await s.call("type_check", { path: ".", checker: "mypy" });
    expect(pidOf(edited.notes, "mypy")).toBe(pid);
    expect(edited.issue_count).toBe(4);
    expect(keys(edited.findings as Shown[])).toEqual(keys(coldMypy(project)));
  });

  it("mypy: a daemon killed from outside is replaced on the next call", async () => {
    const before = await s.call("type_check", { path: ".", checker: "mypy" });
    const pid = pidOf(before.notes, "mypy");
    process.kill(pid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 200));
    const after = await s.call("type_check", { path: ".", checker: "mypy" });
    const replacement = pidOf(after.notes, "mypy");
    seen.add(replacement);
    expect(replacement).not.toBe(pid);
    expect(after.notes).toContainEqual(
      expect.stringMatching(
        new RegExp(`replacing the previous one: the previous one \\(pid ${pid}\\) had ended`),
      ),
    );
    expect(keys(after.findings as Shown[])).toEqual(keys(before.findings as Shown[]));
  });

  it("mypy: a config change restarts the daemon and the new config applies", async () => {
    const before = await s.call("type_check", { path: ".", checker: "mypy" });
    const pid = pidOf(before.notes, "mypy");
    const pyproject = path.join(project, "pyproject.toml");
    fs.writeFileSync(pyproject, fs.readFileSync(pyproject, "utf8").replace("strict = true\n", ""));
    const after = await s.call("type_check", { path: ".", checker: "mypy" });
    const restarted = pidOf(after.notes, "mypy");
    seen.add(restarted);
    expect(restarted).not.toBe(pid);
    expect(after.notes).toContainEqual(
      expect.stringMatching(/replacing the previous one: its configuration changed/),
    );
    expect(survivors([pid])).toEqual([]);
    // Without strict, only the two return-value errors remain, as with mypy run directly.
    expect(keys(after.findings as Shown[])).toEqual(keys(coldMypy(project)));
    expect((after.findings as Shown[]).map((f) => f.rule_id)).toEqual(["return-value", "return-value"]);
  });

  it("pyright: the first check runs cold, the next ones warm; an edit re-checks only what it affects", async () => {
    const first = await s.call("type_check", { path: ".", checker: "pyright" });
    expect(first.notes).toContainEqual(
      "pyright ran cold; its language server starts after this check, for the next ones",
    );
    expect(keys(first.findings as Shown[])).toEqual(keys(coldPyright(project)));

    // Started after the first answer, it checked every file once: nothing to re-check now.
    const again = await s.call("type_check", { path: ".", checker: "pyright" });
    const pid = pidOf(again.notes, "pyright");
    seen.add(pid);
    expect(again.notes).toContainEqual(
      `warm pyright language server pid ${pid}, request 2: 0 of 3 files re-checked`,
    );
    expect(keys(again.findings as Shown[])).toEqual(keys(first.findings as Shown[]));
    expect(again.summary).toEqual(first.summary);

    // cart.py imports prices.py: an edit of cart.py re-checks cart.py alone.
    fs.appendFileSync(cart(), "\n\ndef again() -> str:\n    return 1\n");
    const edited = await s.call("type_check", { path: ".", checker: "pyright" });
    expect(edited.notes).toContainEqual(
      `warm pyright language server pid ${pid}, request 3: 1 of 3 files re-checked`,
    );
    expect(keys(edited.findings as Shown[])).toEqual(keys(coldPyright(project)));
    expect(edited.issue_count).toBe((first.issue_count as number) + 1);
  });

  it("pyright: a file added replaces the process, one killed from outside is replaced on the next call", async () => {
    const waitGone = async (pid: number) => {
      for (let i = 0; i < 40 && survivors([pid]).length; i++) await new Promise((r) => setTimeout(r, 50));
      return survivors([pid]);
    };
    const pid = pidOf((await s.call("type_check", { path: ".", checker: "pyright" })).notes, "pyright");
    fs.writeFileSync(path.join(project, "src", "shop", "tax.py"), "def rate() -> int:\n    return 'high'\n");
    const added = await s.call("type_check", { path: ".", checker: "pyright" });
    expect(added.notes).toContainEqual(
      "pyright ran cold; its language server starts after this check, for the next ones, replacing the previous one: a Python file was added or removed, and pyright lists its files when it starts",
    );
    expect(keys(added.findings as Shown[])).toEqual(keys(coldPyright(project)));
    expect(await waitGone(pid)).toEqual([]);
    const relisted = await s.call("type_check", { path: ".", checker: "pyright" });
    const second = pidOf(relisted.notes, "pyright");
    seen.add(second);
    expect(second).not.toBe(pid);
    expect(relisted.notes).toContainEqual(
      `warm pyright language server pid ${second}, request 2: 0 of 4 files re-checked`,
    );
    expect(keys(relisted.findings as Shown[])).toEqual(keys(added.findings as Shown[]));

    process.kill(second, "SIGKILL");
    expect(await waitGone(second)).toEqual([]);
    const killed = await s.call("type_check", { path: ".", checker: "pyright" });
    expect(killed.notes).toContainEqual(
      `pyright ran cold; its language server starts after this check, for the next ones, replacing the previous one: the previous one (pid ${second}) had ended`,
    );
    const replaced = pidOf((await s.call("type_check", { path: ".", checker: "pyright" })).notes, "pyright");
    seen.add(replaced);
    expect(replaced).not.toBe(second);
  });

  it("get_status lists the warm checkers with pid, age, requests and memory", async () => {
    const status = await s.call("get_status", {});
    const warm = status.warm_checkers as Record<string, unknown>[];
    expect(warm.map((w) => w.tool).sort()).toEqual(["mypy", "pyright"]);
    for (const w of warm) {
      expect(w).toMatchObject({ root: project, busy: false });
      expect(seen.has(w.pid as number)).toBe(true);
      expect(w.rss_mb).toBeGreaterThan(0);
      expect(w.requests).toBeGreaterThan(0);
    }
  });

  it("after the server exits no daemon process or temp folder is left", async () => {
    await s.close();
    const pids = [...seen];
    let left = survivors(pids);
    for (let i = 0; i < 40 && left.length; i++) {
      await new Promise((r) => setTimeout(r, 50));
      left = survivors(pids);
    }
    expect(left).toEqual([]);
    expect(dmypyDirs()).toEqual([]);
  });
});

describe.skipIf(missing("mypy") || missing("dmypy"))("a warm checker past the time limit", () => {
  it("mypy is killed with its process group (a timeout error naming its pid)", async () => {
    const project = copyFixture(FIXTURE);
    // A project mypy plugin that stalls the check (whatever the machine's speed): the call must time out.
    fs.writeFileSync(
      path.join(project, "slow_plugin.py"),
      "import time\nfrom mypy.plugin import Plugin\n\n\nclass Slow(Plugin):\n" +
        "    def get_additional_deps(self, file):\n        time.sleep(60)\n        return []\n\n\n" +
        "def plugin(version):\n    return Slow\n",
    );
    const pyproject = path.join(project, "pyproject.toml");
    fs.writeFileSync(
      pyproject,
      fs
        .readFileSync(pyproject, "utf8")
        .replace("strict = true\n", 'strict = true\nplugins = ["slow_plugin.py"]\n'),
    );
    const cache = tempDir("mcq-xdg-");
    const s = await connectStdio({
      args: ["--allowed-paths", project, "--timeout", "1"],
      cwd: project,
      env: { XDG_CACHE_HOME: cache },
    });
    try {
      const r = await s.call("type_check", { path: ".", checker: "mypy" });
      expect(r).toMatchObject({ success: false, error_type: "timeout" });
      const pid = Number(/\(pid (\d+)\)/.exec(r.error as string)?.[1]);
      expect(r.error).toMatch(/exceeded the 1 s timeout and was killed with its process group/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(survivors([pid])).toEqual([]);
    } finally {
      await s.close();
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });

  it("pyright's language server that stops answering is killed with its process group, and replaced", async () => {
    const project = copyFixture(FIXTURE);
    const cache = tempDir("mcq-xdg-");
    const s = await connectStdio({
      args: ["--allowed-paths", project, "--timeout", "5"],
      cwd: project,
      env: { XDG_CACHE_HOME: cache },
    });
    try {
      await s.call("type_check", { path: ".", checker: "pyright" });
      const pid = pidOf((await s.call("type_check", { path: ".", checker: "pyright" })).notes, "pyright");
      // Alive, but answers nothing: its whole process group (in a sandbox, bwrap and the server under it).
      process.kill(-pid, "SIGSTOP");
      const r = await s.call("type_check", { path: ".", checker: "pyright" });
      expect(r).toMatchObject({ success: false, error_type: "timeout" });
      expect(r.error).toBe(
        `pyright's language server (pid ${pid}) exceeded the 5 s timeout and was killed with its process group`,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(survivors([pid])).toEqual([]);
      const next = await s.call("type_check", { path: ".", checker: "pyright" });
      expect(next.notes).toContainEqual(
        expect.stringMatching(/^pyright ran cold; its language server starts after this check/),
      );
      expect(keys(next.findings as Shown[])).toEqual(keys(coldPyright(project)));
    } finally {
      await s.close();
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});

describe.skipIf(missing("mypy") || missing("dmypy"))("a server killed with SIGKILL", () => {
  it("leaves no orphan: pyright's language server exits at once, the mypy daemon after its idle TTL + 10 s", async () => {
    const project = copyFixture(FIXTURE);
    const cache = tempDir("mcq-xdg-");
    const s = await connectStdio({
      args: ["--allowed-paths", project, "--worker-idle-ttl", "1"],
      cwd: project,
      env: { XDG_CACHE_HOME: cache },
    });
    try {
      const mypy = pidOf((await s.call("type_check", { path: ".", checker: "mypy" })).notes, "mypy");
      await s.call("type_check", { path: ".", checker: "pyright" }); // cold; its language server starts
      const pyright = pidOf((await s.call("type_check", { path: ".", checker: "pyright" })).notes, "pyright");
      const stat = fs.readFileSync(`/proc/${pyright}/stat`, "utf8");
      const serverPid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      process.kill(serverPid, "SIGKILL");
      let left = survivors([pyright]);
      for (let i = 0; i < 40 && left.length; i++) {
        await new Promise((r) => setTimeout(r, 50));
        left = survivors([pyright]);
      }
      expect(left).toEqual([]);
      for (let i = 0; i < 300 && survivors([mypy]).length; i++) await new Promise((r) => setTimeout(r, 100));
      expect(survivors([mypy])).toEqual([]);
    } finally {
      await s.close().catch(() => undefined);
      fs.rmSync(cache, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.skipIf(missing("mypy") || missing("dmypy"))("--warm-checkers false", () => {
  it("runs mypy and pyright cold every time and keeps no process warm", async () => {
    const project = copyFixture(FIXTURE);
    const cache = tempDir("mcq-xdg-");
    const s = await connectStdio({
      args: ["--allowed-paths", project, "--warm-checkers", "false"],
      cwd: project,
      env: { XDG_CACHE_HOME: cache },
    });
    try {
      for (const checker of ["mypy", "pyright"] as const)
        for (let i = 0; i < 2; i++) {
          const r = await s.call("type_check", { path: ".", checker });
          expect(r.notes).toContainEqual(`--warm-checkers false: ${checker} ran cold`);
          expect(keys(r.findings as Shown[])).toEqual(
            keys(checker === "mypy" ? coldMypy(project) : coldPyright(project)),
          );
        }
      expect((await s.call("get_status", {})).warm_checkers).toEqual([]);
    } finally {
      await s.close();
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});
