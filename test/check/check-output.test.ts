/**
 * What `check` writes, at any size: 100,000 ruff findings all reach the SARIF file (the count the ruff CLI
 * gives; GitHub's per-run limit said on stderr and in the run, never a cut) and the JSON read through a slow
 * pipe; --sarif-max-results cuts only when asked, and says so; --sarif never writes through a link.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/server.js";
import { PATH_WITH_TOOLS, runCheck } from "../helpers/check.js";
import { sarifErrors } from "../helpers/sarif.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const FILES = 100;
const PER_FILE = 1000;

interface Log {
  runs: {
    tool: { driver: { name: string } };
    invocations: { toolExecutionNotifications?: { level: string; message: { text: string } }[] }[];
    results: { ruleId: string; level: string }[];
  }[];
}
const notesOf = (log: Log) =>
  log.runs.flatMap((r) =>
    r.invocations.flatMap((i) => i.toolExecutionNotifications ?? []).map((n) => n.message.text),
  );

/** `check` with stdout read through a pipe that takes one chunk per turn of the event loop. */
function checkThroughSlowPipe(
  args: string[],
  cwd: string,
): Promise<{ status: number | null; stdout: Buffer; stderr: string }> {
  const audit = path.join(tempDir("mcq-check-out-audit-"), "audit.log");
  const child = spawn(process.execPath, [CLI, "check", ...args, "--audit-log", audit], {
    cwd,
    env: { ...process.env, PATH: PATH_WITH_TOOLS },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const chunks: Buffer[] = [];
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => {
    chunks.push(c);
    child.stdout.pause();
    setImmediate(() => child.stdout.resume());
  });
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) =>
    child.on("close", (status) => resolve({ status, stdout: Buffer.concat(chunks), stderr })),
  );
}

describe("check --sarif and --json at 100,000 findings", () => {
  const skip = missing("ruff", [TOOLS_VENV_BIN]);
  let dir: string;
  let sarifFile: string;
  let run: { status: number | null; stdout: Buffer; stderr: string };
  let ruffCount: number;
  beforeAll(async () => {
    if (skip) return;
    dir = tempDir("mcq-check-100k-");
    fs.writeFileSync(path.join(dir, "pyproject.toml"), '[tool.ruff.lint]\nselect = ["F401"]\n');
    for (let f = 0; f < FILES; f++)
      fs.writeFileSync(
        path.join(dir, `m${f}.py`),
        Array.from({ length: PER_FILE }, (_, i) => `import os as a${i}\n`).join(""),
      );
    const ruff = spawnSync(path.join(TOOLS_VENV_BIN, "ruff"), ["check", "--output-format", "json", "."], {
      cwd: dir,
      maxBuffer: 1 << 30,
    });
    ruffCount = (JSON.parse(ruff.stdout.toString()) as unknown[]).length;
    sarifFile = path.join(tempDir("mcq-check-100k-out-"), "results.sarif");
    run = await checkThroughSlowPipe([".", "--only", "lint", "--json", "--sarif", sarifFile], dir);
  }, 120_000);

  it.skipIf(skip)("the SARIF file holds every finding ruff reports, and is valid SARIF", () => {
    expect(ruffCount).toBe(FILES * PER_FILE);
    const log = JSON.parse(fs.readFileSync(sarifFile, "utf8")) as Log;
    expect(log.runs.map((r) => [r.tool.driver.name, r.results.length])).toEqual([["ruff", ruffCount]]);
    expect(log.runs[0]!.results.every((r) => r.ruleId === "F401")).toBe(true);
    expect(sarifErrors(log)).toEqual([]);
  });

  it.skipIf(skip)("says where GitHub's limit applies, on stderr and in the run", () => {
    const text = `ruff: ${ruffCount} results in one run: GitHub code scanning accepts at most 25000 results per run`;
    expect(run.stderr).toContain(`mcp-code-quality check: warning: ${sarifFile}: ${text}`);
    expect(run.stderr).toContain("--sarif-max-results 25000");
    expect(notesOf(JSON.parse(fs.readFileSync(sarifFile, "utf8")) as Log)).toContainEqual(
      expect.stringContaining(text),
    );
  });

  it.skipIf(skip)("every byte of the JSON reaches a slowly read pipe", () => {
    expect(run.status).toBe(1);
    expect(run.stdout.length).toBeGreaterThan(10 * 1024 * 1024);
    const json = JSON.parse(run.stdout.toString()) as { exit_code: number; findings: unknown[] };
    expect(json.exit_code).toBe(1);
    expect(json.findings).toHaveLength(ruffCount);
  });
});

describe("check --json to a reader that stops early", () => {
  const skip = missing("ruff", [TOOLS_VENV_BIN]);
  it.skipIf(skip)(
    "exits with the check's code and no error of its own, like `check --json | head`",
    async () => {
      const dir = tempDir("mcq-check-head-");
      fs.writeFileSync(path.join(dir, "pyproject.toml"), '[tool.ruff.lint]\nselect = ["F401"]\n');
      fs.writeFileSync(
        path.join(dir, "app.py"),
        Array.from({ length: 3000 }, (_, i) => `import os as a${i}\n`).join(""),
      );
      const audit = path.join(tempDir("mcq-check-head-audit-"), "audit.log");
      const child = spawn(
        process.execPath,
        [CLI, "check", ".", "--only", "lint", "--json", "--audit-log", audit],
        {
          cwd: dir,
          env: { ...process.env, PATH: PATH_WITH_TOOLS },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.stdout.once("data", () => child.stdout.destroy());
      const status = await new Promise((resolve) => child.on("close", resolve));
      expect(status).toBe(1);
      expect(stderr).toBe("");
    },
  );
});

describe("check --sarif-max-results and links", () => {
  const skip = missing("ruff", [TOOLS_VENV_BIN]);
  let dir: string;
  beforeAll(() => {
    dir = tempDir("mcq-check-out-");
    fs.writeFileSync(path.join(dir, "pyproject.toml"), '[tool.ruff.lint]\nselect = ["F401", "E711"]\n');
    // 30 F401 errors: one level, so the first 12 are kept.
    fs.writeFileSync(
      path.join(dir, "app.py"),
      Array.from({ length: 30 }, (_, i) => `import os as a${i}\n`).join(""),
    );
  });

  it.skipIf(skip)(
    "--sarif-max-results keeps that many, and the log and stderr say how many went",
    async () => {
      const file = path.join(dir, "cut.sarif");
      const r = await runCheck([".", "--only", "lint", "--sarif", file, "--sarif-max-results", "12"], {
        cwd: dir,
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        "mcp-code-quality check: warning: cut.sarif: ruff: 18 of 30 results left out (--sarif-max-results 12: the most severe kept)\n",
      );
      const log = JSON.parse(fs.readFileSync(file, "utf8")) as Log;
      expect(log.runs[0]!.results).toHaveLength(12);
      expect(notesOf(log)).toContain(
        "18 of 30 results left out: --sarif-max-results 12 keeps the most severe 12",
      );
      expect(sarifErrors(log)).toEqual([]);
    },
  );

  it.skipIf(skip)("--sarif-max-results takes a whole number", async () => {
    const r = await runCheck([".", "--sarif", "x.sarif", "--sarif-max-results", "0"], { cwd: dir });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--sarif-max-results: must be in 1-10000000, got 0");
  });

  it.skipIf(skip)(
    "refuses a SARIF path that is a link (committed in the repository), and writes nothing through it",
    async () => {
      const outside = path.join(tempDir("mcq-check-outside-"), "precious.txt");
      fs.writeFileSync(outside, "keep me\n");
      fs.symlinkSync(outside, path.join(dir, "results.sarif"));
      const r = await runCheck([".", "--only", "lint", "--sarif", "results.sarif"], { cwd: dir });
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(
        `mcp-code-quality check: --sarif: ${path.join(dir, "results.sarif")} is a symbolic link: check does not write through links (remove it, or name another file)\n`,
      );
      expect(fs.readFileSync(outside, "utf8")).toBe("keep me\n");
      expect(fs.lstatSync(path.join(dir, "results.sarif")).isSymbolicLink()).toBe(true);
      fs.unlinkSync(path.join(dir, "results.sarif"));
    },
  );

  it.skipIf(skip)("refuses a linked folder on the way inside the working directory", async () => {
    const elsewhere = tempDir("mcq-check-elsewhere-");
    fs.symlinkSync(elsewhere, path.join(dir, "out"));
    const r = await runCheck([".", "--only", "lint", "--sarif", "out/results.sarif"], { cwd: dir });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${path.join(dir, "out")} is a symbolic link`);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    fs.unlinkSync(path.join(dir, "out"));
  });

  it.skipIf(skip)(
    "writes a file outside the working directory, replacing what was there, with no temp file left",
    async () => {
      const outDir = tempDir("mcq-check-outdir-");
      const file = path.join(outDir, "r.sarif");
      fs.writeFileSync(file, "old");
      const r = await runCheck([".", "--only", "lint", "--sarif", file], { cwd: dir });
      expect(r.status).toBe(1);
      expect((JSON.parse(fs.readFileSync(file, "utf8")) as Log).runs[0]!.results).toHaveLength(30);
      expect(fs.readdirSync(outDir)).toEqual(["r.sarif"]);
    },
  );
});
