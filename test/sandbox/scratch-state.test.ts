/**
 * The server's own files for a call (issue 38). The per-user scratch folder was bound read-write into every
 * sandbox: a planted tool rewrote the empty black config the server keeps there (black then said `formatted:
 * true` for another project that is not), rewrote the pytest.ini run_tests writes there (`passed: true` for a
 * failing suite), and a link planted at the shared `cargo-target` folder failed every later cargo call. Now a
 * run sees only the server's folders its own command names, black's config read-only, and cargo's target dir is
 * one per workspace, verified before each use.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";
import { reportChannel, type Fifo } from "../helpers/channel.js";
import { probeSandbox } from "../../src/exec/sandbox/launch.js";

/** The server's scratch root (it runs with our TMPDIR). */
const SCRATCH = path.join(os.tmpdir(), `mcq-${process.getuid?.() ?? "user"}`);

/**
 * A project whose virtualenv's ruff attacks the server's scratch folder, as `MCQ_ATTACK` says:
 * `black`: rewrite every black config there so that black excludes every file;
 * `pytest`: until told to stop, keep replacing every pytest.ini there by one that deselects the failing test.
 * It reports what it did as its one finding.
 */
function attacker(root: string, channel: string): string {
  const dir = path.join(root, "attacker");
  fs.mkdirSync(path.join(dir, ".venv", "bin"), { recursive: true });
  fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "attacker"\n');
  fs.writeFileSync(path.join(dir, "app.py"), "x = 1\n");
  fs.writeFileSync(path.join(dir, ".venv", "bin", "python"), "");
  fs.writeFileSync(
    path.join(dir, ".venv", "bin", "ruff"),
    `#!${process.execPath}
const fs = require("node:fs");
if (process.argv.includes("--version")) { console.log("ruff 0.17.6"); process.exit(0); }
const scratch = ${JSON.stringify(SCRATCH)};
const channel = ${JSON.stringify(channel)};
const mode = fs.readFileSync(channel + "/mode", "utf8").trim();
const done = [];
const entries = () => { try { return fs.readdirSync(scratch); } catch (e) { done.push("scratch " + e.code); return []; } };
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
if (mode === "black") {
  for (const e of entries().filter((e) => e.startsWith("mcq-black-"))) {
    try { fs.writeFileSync(scratch + "/" + e + "/pyproject.toml", '[tool.black]\\nforce-exclude = ".*"\\n'); done.push("rewrote " + e); }
    catch (err) { done.push(err.code + " " + e); }
  }
} else {
  fs.writeFileSync(channel + "/started", "started");
  const until = Date.now() + 30000;
  while (!fs.existsSync(channel + "/stop") && Date.now() < until) {
    for (const e of entries().filter((e) => e.startsWith("mcq-pytest-"))) {
      try {
        fs.writeFileSync(scratch + "/" + e + "/.ini", '[pytest]\\naddopts = -k "not fails"\\n');
        fs.renameSync(scratch + "/" + e + "/.ini", scratch + "/" + e + "/pytest.ini");
        if (!done.includes("rewrote " + e)) done.push("rewrote " + e);
      } catch {}
    }
    sleep(entries().length ? 2 : 20);
  }
}
console.log(JSON.stringify({ code: "X1", message: "ATTACK " + [...new Set(done)].join(", "), filename: "app.py", location: { row: 1, column: 1 } }));
`,
    { mode: 0o755 },
  );
  return dir;
}

describe("the server's scratch files", () => {
  const root = tempDir("mcq-scratch-");
  const at = (...p: string[]) => path.join(root, ...p);
  const channel = reportChannel("mcq-scratch-chan-");
  let started: Fifo;
  let s: Connected;
  let attackerDir: string;

  beforeAll(async () => {
    expect(probeSandbox()).toMatchObject({ available: true });
    attackerDir = attacker(root, channel.dir);
    started = channel.fifo("started");
    fs.mkdirSync(at("black-victim"));
    fs.writeFileSync(at("black-victim", "app.py"), "x  =  1\n");
    fs.mkdirSync(at("tests-victim", "tests"), { recursive: true });
    fs.writeFileSync(
      at("tests-victim", "tests", "test_a.py"),
      "def test_ok():\n    assert True\n\n\ndef test_fails():\n    assert 1 == 2\n",
    );
    fs.mkdirSync(at("rust-victim", "src"), { recursive: true });
    fs.writeFileSync(
      at("rust-victim", "Cargo.toml"),
      '[package]\nname = "victim"\nversion = "0.1.0"\nedition = "2021"\n',
    );
    fs.writeFileSync(at("rust-victim", "src", "lib.rs"), "pub fn f() -> u32 {\n    1\n}\n");
    s = await connectStdio({
      cwd: root,
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", `${root},${channel.dir}`],
    });
  });
  afterAll(async () => {
    started?.close();
    await s?.close();
  });

  it.skipIf(missing("black"))(
    "black's empty config, rewritten by another project's tool, changes nothing",
    async () => {
      const check = () => s.call("format_check", { path: at("black-victim"), formatter: "black" });
      const before = await check();
      expect(before, JSON.stringify(before).slice(0, 1000)).toMatchObject({
        success: true,
        formatted: false,
      });
      expect(before.command).toMatch(new RegExp(`--config ${SCRATCH}/mcq-black-\\w+/pyproject.toml`));
      fs.writeFileSync(path.join(channel.dir, "mode"), "black");
      const attack = await s.call("lint", { path: attackerDir, linter: "ruff" });
      expect(JSON.stringify(attack)).toContain("ATTACK ");
      expect(JSON.stringify(attack)).not.toContain("rewrote");
      expect(await check()).toMatchObject({
        success: true,
        formatted: false,
        unformatted_files: before.unformatted_files,
      });
    },
  );

  it.skipIf(missing("pytest"))(
    "run_tests' pytest.ini, rewritten while it runs, changes nothing",
    async () => {
      fs.rmSync(path.join(channel.dir, "stop"), { force: true });
      fs.writeFileSync(path.join(channel.dir, "mode"), "pytest");
      const attack = s.call("lint", { path: attackerDir, linter: "ruff" });
      await started.until("started");
      try {
        const r = await s.call("run_tests", {
          path: at("tests-victim", "tests"),
          working_dir: at("tests-victim"),
        });
        expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({
          success: true,
          passed: false,
          summary: { passed: 1, failed: 1 },
        });
      } finally {
        fs.writeFileSync(path.join(channel.dir, "stop"), "");
      }
      const text = JSON.stringify(await attack);
      expect(text).toContain("ATTACK ");
      expect(text).not.toContain("rewrote");
    },
  );

  it.skipIf(missing("cargo"))(
    "a link planted at a cargo target path does not break later calls",
    async () => {
      const outside = tempDir("mcq-scratch-outside-");
      const workspace = at("rust-victim");
      const key = createHash("sha256").update(workspace).digest("hex").slice(0, 20);
      fs.mkdirSync(SCRATCH, { recursive: true, mode: 0o700 });
      for (const name of ["cargo-target", `cargo-target-${key}`]) {
        fs.rmSync(path.join(SCRATCH, name), { recursive: true, force: true });
        fs.symlinkSync(outside, path.join(SCRATCH, name));
      }
      for (let i = 0; i < 2; i++) {
        const r = await s.call("lint", { path: workspace, linter: "clippy" });
        expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({ success: true, passed: true });
      }
      expect(fs.readdirSync(outside)).toEqual([]);
      // The shared path is other servers' too (an older build uses it): no link is left there.
      fs.rmSync(path.join(SCRATCH, "cargo-target"), { force: true });
    },
  );
});
