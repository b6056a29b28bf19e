/**
 * `check` from the command line's V8 start-up snapshot (bin/mcp-code-quality, src/cli-snapshot.ts) answers as
 * `check` from the modules does: the same JSON (timings apart) and exit code on every language's fixture, the
 * real tools behind both (ruff, ESLint and tsc in their workers, gofmt/go vet, cargo, RuboCop, the link
 * checker). A snapshot older than its bundle runs the modules instead, and says nothing of it.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CHECK_FIXTURES, PATH_WITH_TOOLS } from "../helpers/check.js";
import { CLI, REPO_ROOT } from "../helpers/server.js";
import { IN_CI, tempDir } from "../helpers/tools.js";
import { DEFAULT_INLINE_MAX_CHARS } from "../../src/adapters/python/ruff-thread-host.js";
import { answersDir, parseMemo, readMemoFile } from "../../src/check/answer/memo-format.js";

const BIN = path.join(REPO_ROOT, "bin", "mcp-code-quality");
// As src/cli-snapshot-blob.ts names it in dist/bundle.
const blob = path.join(REPO_ROOT, "dist", "bundle", `cli-snapshot-${process.version}-${os.machine()}.blob`);

/** A check's JSON without what differs between two runs of the same check (timings). */
function verdict(stdout: string): unknown {
  const report = JSON.parse(stdout) as { duration_ms?: number; checks: { duration_ms?: number }[] };
  delete report.duration_ms;
  for (const c of report.checks) delete c.duration_ms;
  return report;
}

function check(argv: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync(argv[0]!, [...argv.slice(1)], {
    cwd,
    env: { ...process.env, PATH: PATH_WITH_TOOLS, ...env },
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
}

/** A package of its own: dist/ copied without its blobs, bin and policy, node_modules linked. */
function packageCopy(): string {
  const pkg = tempDir("mcq-snap-pkg-");
  fs.cpSync(path.join(REPO_ROOT, "dist"), path.join(pkg, "dist"), {
    recursive: true,
    filter: (src) => !src.endsWith(".blob"),
  });
  for (const dir of ["bin", "policy"])
    fs.cpSync(path.join(REPO_ROOT, dir), path.join(pkg, dir), { recursive: true });
  fs.copyFileSync(path.join(REPO_ROOT, "package.json"), path.join(pkg, "package.json"));
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(pkg, "node_modules"));
  return pkg;
}

/** Builds the command line's blob in `pkg`; stdout is why not, when it was not built. */
function buildBlobIn(pkg: string) {
  return spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `process.stdout.write((await import("./dist/cli-snapshot-blob.js")).buildCliSnapshotBlob() ?? "")`,
    ],
    { cwd: pkg, encoding: "utf8" },
  );
}

describe("check from the start-up snapshot", () => {
  it("npm run build made a blob for this Node", () => {
    // Outside CI a build without one (another Node, a read-only folder) only loses speed.
    if (!IN_CI && !fs.existsSync(blob)) return;
    expect(fs.existsSync(blob)).toBe(true);
  });

  it.each(["python", "js", "go", "rust", "ruby", "markdown"])(
    "gives the modules' verdict and exit code on the %s fixture",
    (fixture) => {
      if (!fs.existsSync(blob)) return;
      const dir = path.join(CHECK_FIXTURES, fixture);
      const audit = path.join(tempDir("mcq-snap-audit-"), "audit.log");
      const args = ["check", ".", "--json", "--audit-log", audit];
      const fromModules = check([process.execPath, CLI, ...args], dir);
      const fromSnapshot = check([BIN, ...args], dir);
      expect(fromModules.stderr).not.toMatch(/Error|snapshot/);
      expect(fromSnapshot.status).toBe(fromModules.status);
      expect(verdict(fromSnapshot.stdout)).toEqual(verdict(fromModules.stdout));
      // Not a vacuous comparison: every fixture has findings.
      expect((JSON.parse(fromSnapshot.stdout) as { findings: unknown[] }).findings.length).toBeGreaterThan(0);
    },
  );

  it("check --daemon through the small client gives the modules' verdict, and --no-daemon still wins", () => {
    const dir = path.join(CHECK_FIXTURES, "python");
    const audit = path.join(tempDir("mcq-snap-audit-"), "audit.log");
    const env = { TMPDIR: tempDir("mcq-client-tmp-"), XDG_RUNTIME_DIR: tempDir("mcq-client-run-") };
    const args = ["check", ".", "--json", "--audit-log", audit];
    const fromModules = check([process.execPath, CLI, ...args], dir, env);
    try {
      for (let i = 0; i < 2; i++) {
        // The first starts the daemon, the second finds it warm.
        const through = check([BIN, ...args, "--daemon"], dir, env);
        expect(through.status, through.stderr).toBe(fromModules.status);
        expect(verdict(through.stdout)).toEqual(verdict(fromModules.stdout));
      }
      const status = check([BIN, "check", "--daemon-status"], dir, env);
      expect(status.status).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ served: 2 });
      // The environment asks for the daemon, the flag says no: this process checks, the daemon serves nothing.
      const off = check([BIN, ...args, "--no-daemon"], dir, { ...env, MCP_CODE_QUALITY_CHECK_DAEMON: "1" });
      expect(verdict(off.stdout)).toEqual(verdict(fromModules.stdout));
      expect(JSON.parse(check([BIN, "check", "--daemon-status"], dir, env).stdout)).toMatchObject({
        served: 2,
      });
    } finally {
      check([BIN, "check", "--daemon-stop"], dir, env);
    }
  });

  it("is built from ASCII source without comments (V8 keeps it in the heap, two bytes a character otherwise)", () => {
    for (const bundle of ["cli-snapshot.cjs", "hook-snapshot.cjs"]) {
      const file = path.join(REPO_ROOT, "dist", "bundle", bundle);
      if (!IN_CI && !fs.existsSync(file)) continue;
      const text = fs.readFileSync(file, "latin1");
      expect(/[\x80-\xff]/.test(text), `${bundle} has a non-ASCII byte`).toBe(false);
      // Whitespace-minified: a few long lines, not one per statement.
      expect(text.split("\n").length, bundle).toBeLessThan(text.length / 1000);
    }
  });

  it("starts worker threads: the embedded ruff's thread, for a file too large for the main thread", () => {
    if (!fs.existsSync(blob)) return;
    // No ruff CLI on PATH (node only): the embedded ruff checks, and a source over the main thread's limit goes
    // to its worker thread. A snapshot whose build loaded node:worker_threads failed every such thread.
    const dir = tempDir("mcq-snap-thread-");
    const line = "import os, sys\n";
    const lines = Math.ceil(DEFAULT_INLINE_MAX_CHARS / 30) + 10;
    const body = Array.from({ length: lines }, (_, i) => `value_${i} = "${"x".repeat(20)}"\n`).join("");
    fs.writeFileSync(path.join(dir, "big.py"), line + body);
    fs.writeFileSync(path.join(dir, "small.py"), "import json\n");
    expect(fs.statSync(path.join(dir, "big.py")).size).toBeGreaterThan(DEFAULT_INLINE_MAX_CHARS);
    const env = { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` };
    const audit = path.join(tempDir("mcq-snap-audit-"), "audit.log");
    const args = ["check", ".", "--only", "ruff", "--json", "--audit-log", audit];
    const fromModules = check([process.execPath, CLI, ...args], dir, env);
    const fromSnapshot = check([BIN, ...args], dir, env);
    expect(fromSnapshot.stdout).not.toMatch(/thread failed/);
    expect(fromSnapshot.status).toBe(fromModules.status);
    expect(verdict(fromSnapshot.stdout)).toEqual(verdict(fromModules.stdout));
    const report = JSON.parse(fromSnapshot.stdout) as { findings: { file: string; rule_id: string }[] };
    // F401 on both files: the large one was checked (by the thread), not only the small one.
    expect(report.findings.filter((f) => f.rule_id === "F401").map((f) => path.basename(f.file))).toEqual([
      "big.py",
      "big.py",
      "small.py",
    ]);
  });

  it("marks each process's children with a token of its own, though its build ran a check (the warm-up)", () => {
    if (!fs.existsSync(blob)) return;
    const dir = tempDir("mcq-snap-token-");
    fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "p"\n');
    fs.writeFileSync(path.join(dir, "a.py"), "x = 1\n");
    const bin = path.join(dir, ".venv", "bin");
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, "python"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    // The project's ruff says which token marks it, then answers as ruff with nothing found.
    const tokens = path.join(tempDir("mcq-snap-tokens-"), "tokens");
    fs.writeFileSync(
      path.join(bin, "ruff"),
      `#!/bin/sh\necho "$MCQ_SERVER_TOKEN" >> '${tokens}'\n` +
        'case " $* " in *" --version "*) echo "ruff 0.17.6" ;; esac\nexit 0\n',
      { mode: 0o755 },
    );
    const args = [
      BIN,
      "check",
      ".",
      "--only",
      "ruff",
      "--sandbox",
      "off",
      "--result-cache",
      "false",
      "--json",
    ];
    for (let i = 0; i < 2; i++) check(args, dir, { MCP_CODE_QUALITY_CHECK_REPLAY: "0" });
    const byRun = fs.readFileSync(tokens, "utf8").trim().split("\n");
    expect(byRun.length).toBeGreaterThanOrEqual(2);
    expect(byRun.every((t) => /^[0-9a-f]{32}$/.test(t))).toBe(true);
    // Within a run one token, across the two runs two: not the one the build made.
    expect(new Set(byRun).size).toBe(2);
  });

  it("keys what it keeps by this build's id, not one its build read before the id was recorded", async () => {
    if (!fs.existsSync(blob)) return;
    const dir = tempDir("mcq-snap-build-id-");
    fs.writeFileSync(path.join(dir, "README.md"), "# A\n\n[a](#a)\n");
    const xdg = tempDir("mcq-snap-build-id-cache-");
    await new Promise((r) => setTimeout(r, 150));
    const r = check([BIN, "check", ".", "--only", "links", "--result-cache", "true"], dir, {
      XDG_CACHE_HOME: xdg,
      MCP_CODE_QUALITY_CHECK_REPLAY: "explain",
    });
    expect(r.stderr).toMatch(/answer kept/);
    const dirOfAnswers = answersDir({ XDG_CACHE_HOME: xdg });
    const [memo] = fs
      .readdirSync(dirOfAnswers)
      .map((f) => parseMemo(readMemoFile(path.join(dirOfAnswers, f)) ?? ""));
    const recorded = (
      JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "dist", "build-id.json"), "utf8")) as { id: string }
    ).id;
    expect(JSON.parse(memo?.key ?? "[]")[1]).toBe(recorded);
  });

  it("keeps nothing where its build's check kept its tree (a folder deleted since)", async () => {
    if (!fs.existsSync(blob)) return;
    const warmUps = () => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith("mcq-snapshot-warm-up-"));
    const before = warmUps();
    const dir = tempDir("mcq-snap-tree-");
    fs.writeFileSync(path.join(dir, "README.md"), "# A\n\n[a](#a)\n");
    for (const cache of ["false", "true"]) {
      const r = check([BIN, "check", ".", "--only", "links", "--result-cache", cache], dir, {
        XDG_CACHE_HOME: tempDir("mcq-snap-tree-cache-"),
        MCP_CODE_QUALITY_CHECK_REPLAY: "0",
      });
      expect(r.status).toBe(0);
    }
    // Another test's build (npm pack's) may be running its own warm-up at this moment: its folder goes when
    // that build ends. One this check made would stay.
    const stayed = async () => {
      for (let i = 0; i < 120; i++) {
        const added = warmUps().filter((n) => !before.includes(n));
        if (added.length === 0) return added;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      return warmUps().filter((n) => !before.includes(n));
    };
    expect(await stayed()).toEqual([]);
  }, 120_000);

  it("runs the blob of the Node that built it without asking its version; another Node asks", () => {
    if (!fs.existsSync(blob)) return;
    // A `uname` first on PATH that says it was asked (the command asks `node --version` and `uname -m`
    // together when it cannot tell which Node it has).
    const stubs = tempDir("mcq-snap-stubs-");
    const asked = path.join(stubs, "asked");
    fs.writeFileSync(
      path.join(stubs, "uname"),
      `#!/bin/sh\necho uname >> '${asked}'\nexec /usr/bin/uname "$@"\n`,
      {
        mode: 0o755,
      },
    );
    const help = (extraPath: string[]) =>
      check([BIN, "check", "--help"], REPO_ROOT, { PATH: [...extraPath, stubs, PATH_WITH_TOOLS].join(":") });
    const same = help([path.dirname(process.execPath)]);
    expect(same.status).toBe(0);
    expect(same.stdout).toMatch(/^Usage: mcp-code-quality check/);
    expect(fs.existsSync(asked)).toBe(false);
    // A copy of this Node is another file: the command asks which Node it is, and still runs its blob.
    const other = tempDir("mcq-snap-node-");
    fs.copyFileSync(process.execPath, path.join(other, "node"));
    fs.chmodSync(path.join(other, "node"), 0o755);
    const copy = help([other]);
    expect(copy.status).toBe(0);
    expect(copy.stdout).toMatch(/^Usage: mcp-code-quality check/);
    expect(fs.readFileSync(asked, "utf8")).toBe("uname\n");
  });

  it("refuses to write a blob whose build loaded node:worker_threads", () => {
    const pkg = packageCopy();
    const cjs = path.join(pkg, "dist", "bundle", "cli-snapshot.cjs");
    fs.writeFileSync(cjs, fs.readFileSync(cjs, "utf8") + '\nrequire("node:worker_threads");\n');
    const build = buildBlobIn(pkg);
    expect(build.status).toBe(0);
    expect(build.stdout).toContain("node:worker_threads was loaded while the snapshot was built");
    expect(fs.existsSync(path.join(pkg, "dist", "bundle", path.basename(blob)))).toBe(false);
  });

  it("runs the modules when its bundle was rebuilt since", () => {
    // A package of its own: dist/ copied, its blob built there, then its bundle replaced.
    const pkg = packageCopy();
    const build = buildBlobIn(pkg);
    expect(build.status).toBe(0);
    const pkgBlob = path.join(pkg, "dist", "bundle", path.basename(blob));
    expect(fs.existsSync(pkgBlob)).toBe(true);
    // The modules' entry says when it runs.
    const entry = path.join(pkg, "dist", "cli.js");
    fs.writeFileSync(
      entry,
      fs.readFileSync(entry, "utf8").replace(/\n/, '\nprocess.stderr.write("from-modules\\n");\n'),
    );
    const bin = path.join(pkg, "bin", "mcp-code-quality");
    const fresh = check([bin, "check", "--help"], pkg);
    expect(fresh.status).toBe(0);
    expect(fresh.stdout).toMatch(/^Usage: mcp-code-quality check/);
    expect(fresh.stderr).not.toContain("from-modules");
    const cjs = path.join(pkg, "dist", "bundle", "cli-snapshot.cjs");
    fs.writeFileSync(cjs, fs.readFileSync(cjs, "utf8") + "\n// rebuilt\n");
    const stale = check([bin, "check", "--help"], pkg);
    expect(stale.status).toBe(0);
    expect(stale.stdout).toMatch(/^Usage: mcp-code-quality check/);
    expect(stale.stderr).toContain("from-modules");
  });
});
