/**
 * The answer memo's recorder and its dependency states, in this process (src/check/answer/): what a run read
 * is what the memo depends on, a change just before or during the run keeps nothing, a child process keeps
 * nothing, and a link depends on both itself and what it points to.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AnswerRecorder, racy } from "../../src/check/answer/record.js";
import {
  answersDir,
  depStates,
  firstChanged,
  memoKey,
  memoName,
  parseMemo,
  readMemoFile,
  type AnswerMemo,
} from "../../src/check/answer/memo-format.js";
import { startWorker } from "../../src/exec/worker-threads.js";
import { tempDir } from "../helpers/tools.js";

/** The built recorder, for a process of its own (dist: `npm run build`). */
const DIST_RECORDER = path.resolve(import.meta.dirname, "../../dist/check/answer/record.js");

let recorder: AnswerRecorder | undefined;
const xdg = process.env.XDG_CACHE_HOME;
afterEach(() => {
  recorder?.stop();
  if (xdg === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = xdg;
});

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A recorder writing into its own cache folder (XDG_CACHE_HOME), and where its memo for `argv` lands. */
function recording(cache: string, argv: string[]) {
  process.env.XDG_CACHE_HOME = cache;
  recorder = AnswerRecorder.start();
  const file = path.join(answersDir({ XDG_CACHE_HOME: cache }), memoName(memoKey("test-build", "/w", argv)));
  return { recorder, memo: () => parseMemo(readMemoFile(file) ?? "") };
}

describe("the answer recorder", () => {
  it("depends on what the run read, and on the variables it read", async () => {
    const dir = tempDir("mcq-memo-read-");
    const file = path.join(dir, "a.py");
    fs.writeFileSync(file, "x = 1\n");
    await wait(150);
    const { recorder: r, memo } = recording(tempDir("mcq-memo-cache-"), ["check", "a"]);
    fs.readFileSync(file, "utf8");
    await fs.promises.readdir(dir);
    void process.env.MCQ_MEMO_TEST_VAR;
    process.stdout.write("");
    expect(r.finish(0, ["check", "a"], "/w", "test-build")).toBeUndefined();
    const kept = memo() as AnswerMemo;
    expect(kept.env).toMatchObject({ MCQ_MEMO_TEST_VAR: null });
    expect(Object.keys(kept.deps[dir] ?? {})).toEqual(expect.arrayContaining(["a.py"]));
    expect(firstChanged(kept, process.env)).toBeUndefined();
    expect(firstChanged(kept, { ...process.env, MCQ_MEMO_TEST_VAR: "1" })).toBe(
      "environment variable MCQ_MEMO_TEST_VAR",
    );
    fs.appendFileSync(file, "y = 2\n");
    expect(firstChanged(kept, process.env)).toBe(file);
  });

  it("keeps nothing when what it read changed just before or during the run", async () => {
    const dir = tempDir("mcq-memo-racy-");
    const file = path.join(dir, "a.py");
    const cache = tempDir("mcq-memo-cache-");
    fs.writeFileSync(file, "x = 1\n");
    const { recorder: r } = recording(cache, ["check", "b"]);
    fs.readFileSync(file);
    expect(r.finish(0, ["check", "b"], "/w", "test-build")).toMatch(/changed during the run or just before/);
  });

  it("takes a time in whole seconds for a coarse file system's: changed within two seconds is racy", () => {
    const start = 1_700_000_010_500;
    expect(racy(start - 50.25, start)).toBe(true);
    expect(racy(start - 150.25, start)).toBe(false);
    // 1,700,000,009 s: 1.5 s before the start, whole seconds: a write later in that second would not show.
    expect(racy(1_700_000_009_000, start)).toBe(true);
    expect(racy(1_700_000_008_000, start)).toBe(false);
    expect(racy(undefined, start)).toBe(false);
  });

  it("keeps nothing when the run started a process or wrote outside its own folders", async () => {
    const first = recording(tempDir("mcq-memo-cache-"), ["check", "c"]).recorder;
    spawnSync("true");
    expect(first.finish(0, ["check", "c"], "/w", "test-build")).toBe("ran true");
    const cache = tempDir("mcq-memo-cache-");
    const elsewhere = path.join(tempDir("mcq-memo-write-"), "out.txt");
    const second = recording(cache, ["check", "d"]).recorder;
    fs.writeFileSync(elsewhere, "x");
    expect(second.finish(0, ["check", "d"], "/w", "test-build")).toBe(`wrote ${elsewhere}`);
    const third = recording(tempDir("mcq-memo-cache-"), ["check", "e"]).recorder;
    expect(third.finish(3, ["check", "e"], "/w", "test-build")).toBe("exit code 3");
  });

  it("names the deps changed last first (a miss looks there first), and still looks at every dep", async () => {
    const dir = tempDir("mcq-memo-recent-");
    const files = ["old.py", "newer.py", "newest.py"].map((n) => path.join(dir, n));
    // Written one after the other, then left alone past the racy window.
    for (const f of files) {
      fs.writeFileSync(f, "x = 1\n");
      await wait(60);
    }
    await wait(150);
    const { recorder: r, memo } = recording(tempDir("mcq-memo-cache-"), ["check", "r"]);
    for (const f of files) fs.readFileSync(f);
    expect(r.finish(0, ["check", "r"], "/w", "test-build")).toBeUndefined();
    const kept = memo() as AnswerMemo;
    const names = (kept.recent ?? []).filter(([d]) => d === dir).map(([, n]) => n);
    expect(names).toEqual(["newest.py", "newer.py", "old.py"]);
    // A change to any dep is found; with two changed, the one changed last is named (looked at first;
    // the deps in their own order would name old.py).
    fs.appendFileSync(files[0]!, "y = 2\n");
    expect(firstChanged(kept, process.env)).toBe(files[0]);
    fs.appendFileSync(files[2]!, "y = 2\n");
    expect(firstChanged(kept, process.env)).toBe(files[2]);
  });

  it("keeps nothing when the run started a worker thread, of ours or of a package's", async () => {
    const ours = recording(tempDir("mcq-memo-cache-"), ["check", "t"]).recorder;
    const thread = startWorker("", { eval: true });
    await thread.terminate();
    expect(ours.finish(0, ["check", "t"], "/w", "test-build")).toBe("a worker thread");
    // A package's thread (piscina's) does not start through startWorker; in a process that had not loaded
    // node:worker_threads (as a fresh check), loading it is what tells. Run where nothing loaded it yet.
    const script = [
      `const { AnswerRecorder } = await import(${JSON.stringify(DIST_RECORDER)});`,
      "const r = AnswerRecorder.start();",
      "const { Worker } = await import('node:worker_threads');",
      "await new Worker('', { eval: true }).terminate();",
      "process.stdout.write(String(r.finish(0, ['check', 'u'], '/w', 'b')));",
    ].join("\n");
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { ...process.env, XDG_CACHE_HOME: tempDir("mcq-memo-cache-") },
    });
    expect(child.stderr).toBe("");
    expect(child.stdout).toBe("a worker thread");
  });

  it("puts every function back when it stops", () => {
    const before = [fs.readFileSync, fs.promises.readFile, fs.realpathSync.native, process.stdout.write];
    const env = process.env;
    recording(tempDir("mcq-memo-cache-"), ["check", "f"]).recorder.stop();
    expect([fs.readFileSync, fs.promises.readFile, fs.realpathSync.native, process.stdout.write]).toEqual(
      before,
    );
    expect(process.env).toBe(env);
  });
});

/** A memo of these dependencies alone. */
const memoOf = (deps: AnswerMemo["deps"]): AnswerMemo => ({
  format: 3,
  key: "",
  node: "",
  env: {},
  streams: "-,-",
  deps,
  output: [],
  code: 0,
  storedAt: 0,
});

describe("a dependency's states", () => {
  it("one stat for a file; a link depends on itself and on what it points to", () => {
    const dir = tempDir("mcq-memo-link-");
    const target = path.join(dir, "target.py");
    const link = path.join(dir, "link.py");
    fs.writeFileSync(target, "x = 1\n");
    fs.symlinkSync(target, link);
    expect(depStates(target, ["s", "l"]).s).toBe("=");
    const states = depStates(link, ["s", "l"]);
    expect(states.s).not.toBe("=");
    expect(states.s).not.toBe(states.l);
    const memo = memoOf({ [dir]: { "link.py": states } });
    expect(firstChanged(memo, {})).toBeUndefined();
    fs.appendFileSync(target, "y = 2\n");
    expect(firstChanged(memo, {})).toBe(link);
  });

  it("a path that was absent counts when it appears", () => {
    const dir = tempDir("mcq-memo-absent-");
    const later = path.join(dir, "ruff.toml");
    const memo = memoOf({ [dir]: { "ruff.toml": depStates(later, ["s"]) } });
    expect(memo.deps[dir]?.["ruff.toml"]?.s).toBe("!ENOENT");
    expect(firstChanged(memo, {})).toBeUndefined();
    fs.writeFileSync(later, "");
    expect(firstChanged(memo, {})).toBe(later);
  });
});
