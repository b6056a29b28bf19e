/** Runs the built `mcp-code-quality check` (dist/cli.js) as a real process and collects what it printed. */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CLI, FIXTURES } from "./server.js";
import { copyFixture, TOOLS_GO_BIN, TOOLS_VENV_BIN } from "./tools.js";

/**
 * The check fixtures, copied once per test process out of this repository: each is a project of its own. In
 * the repository `check`'s default allowed root is its git work tree (src/check/default-roots.ts), whose own
 * configuration (eslint.config.js, which ignores test/fixtures) would apply to them, as by hand.
 */
export const CHECK_FIXTURES = copyFixture(path.join(FIXTURES, "check"));
process.on("exit", () => fs.rmSync(CHECK_FIXTURES, { recursive: true, force: true }));

/** PATH with the tools scripts/install-tools.sh puts under .tools/ (the ruff CLI, ty, staticcheck...). */
export const PATH_WITH_TOOLS = [TOOLS_VENV_BIN, TOOLS_GO_BIN, process.env.PATH ?? ""].join(":");

export interface CheckRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `check` with these arguments; an audit log in a temp dir unless given; env overrides (undefined removes).
 * `program`: what runs `check` (default: this Node on dist/cli.js; the bin, the native front).
 */
export function runCheck(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; program?: string[] } = {},
): Promise<CheckRun> {
  const env: Record<string, string | undefined> = { ...process.env, PATH: PATH_WITH_TOOLS, ...options.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const audit = args.includes("--audit-log")
    ? []
    : ["--audit-log", path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-check-audit-")), "audit.log")];
  // The audit log first: every word after --files is a file name.
  return runProgram([...(options.program ?? [process.execPath, CLI]), "check", ...audit, ...args], {
    cwd: options.cwd ?? CHECK_FIXTURES,
    env: env as Record<string, string>,
  });
}

/** Runs `argv` to its end: its exit status and what it printed. */
function runProgram(
  argv: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<CheckRun> {
  const child = spawn(argv[0]!, argv.slice(1), { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

/** The JSON `check --json` printed. */
export interface CheckJson {
  exit_code: number;
  checks: {
    id: string;
    kind: string;
    language: string;
    target: string;
    status: string;
    finding_count: number;
    reason?: string;
    error_type?: string;
    /** A failed check's run. */
    command?: string;
    returncode?: number | null;
    output?: string;
    notes?: string[];
  }[];
  findings: {
    check: string;
    tool: string;
    file: string;
    line: number;
    rule_id: string;
    level: string;
    docs_url?: string;
  }[];
  fixes?: { id: string; tool: string; success: boolean; changed_files: number }[];
  not_checked?: { target: string; reasons: string[] }[];
}

export const parseJson = (run: CheckRun) => JSON.parse(run.stdout) as CheckJson;
