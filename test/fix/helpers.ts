/** Shared by the transaction tests: servers with the ruff CLI on PATH, tree snapshots, audit reads. */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";

export const FIX_PROJECT = path.join(FIXTURES, "python", "fix-project");
export const TYPECOMMENT_PROJECT = path.join(FIXTURES, "python", "typecomment-project");
export const PATH_WITH_RUFF = `${TOOLS_VENV_BIN}:/usr/bin:/bin`;
export const PATH_WITHOUT_RUFF = "/usr/bin:/bin";
export const RUFF_CLI = path.join(TOOLS_VENV_BIN, "ruff");

export const noRuff = () => missing("ruff", [TOOLS_VENV_BIN]);
export const noMypy = () => missing("mypy");

/** A server allowed into `dir` (its cwd), with the ruff CLI on PATH unless `path` says otherwise. */
export function serverFor(
  dir: string,
  options: { args?: string[]; env?: Record<string, string>; path?: string } = {},
): Promise<Connected> {
  return connectStdio({
    args: ["--allowed-paths", dir, ...(options.args ?? [])],
    cwd: dir,
    env: { PATH: options.path ?? PATH_WITH_RUFF, ...options.env },
  });
}

/** Every file under dir (relative path → bytes), .mcp-cache excluded. */
export function readTree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === ".mcp-cache") continue;
      const abs = path.join(d, e.name);
      if (e.isDirectory()) walk(abs);
      else out.set(path.relative(dir, abs), fs.readFileSync(abs));
    }
  };
  walk(dir);
  return out;
}

/** Text view of a tree for readable assertion diffs. */
export function treeText(dir: string): Record<string, string> {
  return Object.fromEntries([...readTree(dir)].map(([k, v]) => [k, v.toString("utf8")]));
}

/** Runs the real ruff CLI directly (the reference a server's result is compared with). */
export function ruffDirect(cwd: string, args: string[]): void {
  const r = spawnSync(RUFF_CLI, args, { cwd, encoding: "utf8" });
  if (r.status !== 0 && r.status !== 1) throw new Error(`ruff ${args.join(" ")}: ${r.stderr}`);
}

export function fixProject(): string {
  return copyFixture(FIX_PROJECT);
}

export interface AuditEntry {
  timestamp: string;
  run_id: string;
  tool: string;
  result: string;
  reason?: string;
  files_written: string[];
  lock_acquired?: string;
  lock_released?: string;
  [k: string]: unknown;
}

export async function txEntries(s: Connected, dir: string, filters: Record<string, unknown> = {}) {
  const r = await s.call("get_audit_log", { path: dir, limit: 1000, ...filters });
  if (!r.success) throw new Error(JSON.stringify(r));
  return r.entries as AuditEntry[];
}

/** Polls until `check` returns a value (not undefined), up to `ms`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** True when no two entries' lock hold intervals overlap. */
export function locksSerialized(entries: AuditEntry[]): boolean {
  const spans = entries
    .filter((e) => e.lock_acquired && e.lock_released)
    .map((e) => [Date.parse(e.lock_acquired as string), Date.parse(e.lock_released as string)] as const)
    .sort((a, b) => a[0] - b[0]);
  return spans.every((s, i) => i === 0 || s[0] >= (spans[i - 1] as readonly [number, number])[1]);
}
