/**
 * Scope locks: transactions whose project roots overlap (one is the other, or lies inside it) exclude each
 * other in every server process of this user, whatever their allowed roots. Servers allowed into /repo and
 * into /repo/pkg each lock their own project root in its `.mcp-cache/`, so those locks alone let two of them
 * write pkg's files at once (issue 10.4). A held scope is a proper-lockfile lock in one per-user folder
 * (`~/.cache/mcp-code-quality/scope-locks`; $MCP_CODE_QUALITY_LOCK_DIR to choose; the temp folder when the
 * home folder cannot hold it) with a `<key>.scope` file naming its root; a scope is taken under a short
 * mutex, and only while no overlapping scope is held.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { properLockfile } from "../exec/lockfile-lazy.js";
import { ToolError } from "../errors.js";
import { isWithin } from "../paths/allowlist.js";
import { openDirIn, removeFileIn, writeFileIn, type SafeDir } from "../paths/safe-fs.js";

export const LOCK_DIR_ENV = "MCP_CODE_QUALITY_LOCK_DIR";
const RETRY_MS = 100;

export interface HeldScope {
  compromised(): Error | undefined;
  release(): Promise<void>;
}

export interface ScopeTiming {
  stale: number;
  update: number;
}

let registry: SafeDir | undefined;

/** Where the scope locks live: the configured folder, else under the home folder, else the temp folder. */
function candidates(): string[] {
  const configured = process.env[LOCK_DIR_ENV];
  if (configured) return [path.resolve(configured)];
  return [
    path.join(os.homedir(), ".cache", "mcp-code-quality", "scope-locks"),
    path.join(os.tmpdir(), `mcp-code-quality-scope-locks-${process.getuid?.() ?? "user"}`),
  ];
}

/** The per-user folder, opened once: owner-only, ours, reached without links. */
function registryDir(): SafeDir {
  if (registry) return registry;
  let failure: unknown;
  for (const wanted of candidates())
    try {
      return (registry = openRegistry(wanted));
    } catch (err) {
      failure = err;
    }
  throw failure;
}

function openRegistry(wanted: string): SafeDir {
  fs.mkdirSync(path.dirname(wanted), { recursive: true, mode: 0o700 });
  const parent = fs.realpathSync.native(path.dirname(wanted));
  const dir = openDirIn(parent, path.join(parent, path.basename(wanted)), { create: 0o700 });
  const st = dir.stat();
  if ((process.getuid && st.uid !== process.getuid()) || (st.mode & 0o022) !== 0) {
    dir.close();
    throw new ToolError(
      "exception",
      `the scope lock folder ${wanted} is not owned by this user or is writable by others; no transaction was started`,
    );
  }
  return dir;
}

const keyOf = (scope: string) => createHash("sha256").update(scope).digest("hex").slice(0, 32);

function lockOpts(dir: SafeDir, key: string, timing: ScopeTiming) {
  return { ...timing, realpath: false, lockfilePath: dir.entry(`${key}.lock`) };
}

function readScope(dir: SafeDir, name: string): string | undefined {
  try {
    const fd = fs.openSync(dir.entry(name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      return fs.readFileSync(fd, "utf8");
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Under the mutex: whether a held scope overlaps `scope`; scope files whose lock is free are removed. */
async function overlapHeld(dir: SafeDir, scope: string, timing: ScopeTiming): Promise<boolean> {
  let overlapping = false;
  for (const entry of dir.list()) {
    if (!entry.isFile() || !entry.name.endsWith(".scope")) continue;
    const key = entry.name.slice(0, -".scope".length);
    const held = await properLockfile()
      .check(dir.entry(key), lockOpts(dir, key, timing))
      .catch(() => false);
    if (!held) {
      removeFileIn(dir.path, path.join(dir.path, entry.name));
      continue;
    }
    const other = readScope(dir, entry.name);
    if (other !== undefined && (isWithin(other, scope) || isWithin(scope, other))) overlapping = true;
  }
  return overlapping;
}

/** Under the mutex: takes `scope` (no overlapping one is held). */
async function take(dir: SafeDir, scope: string, timing: ScopeTiming): Promise<HeldScope | undefined> {
  const key = keyOf(scope);
  let compromised: Error | undefined;
  let release: () => Promise<void>;
  try {
    release = await properLockfile().lock(dir.entry(key), {
      ...lockOpts(dir, key, timing),
      retries: 0,
      onCompromised: (err) => {
        compromised = err;
      },
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOCKED") return undefined;
    throw err;
  }
  writeFileIn(dir.path, path.join(dir.path, `${key}.scope`), scope, { mode: 0o600, links: "refuse" });
  return { compromised: () => compromised, release: () => release().catch(() => {}) };
}

/**
 * Waits up to `waitMs` until no overlapping scope is held, then holds `scope` (a canonical project root);
 * undefined when it stayed taken.
 */
export async function acquireScope(
  scope: string,
  waitMs: number,
  timing: ScopeTiming,
  signal?: AbortSignal,
): Promise<HeldScope | undefined> {
  const dir = registryDir();
  const started = performance.now();
  for (;;) {
    const unlock = await properLockfile().lock(dir.entry("registry"), {
      ...lockOpts(dir, "registry", timing),
      retries: { retries: 1000, factor: 1, minTimeout: 2, maxTimeout: 10 },
      onCompromised: () => {},
    });
    let held: HeldScope | undefined;
    try {
      if (!(await overlapHeld(dir, scope, timing))) held = await take(dir, scope, timing);
    } finally {
      await unlock().catch(() => {});
    }
    if (held) return held;
    if (performance.now() - started >= waitMs || signal?.aborted) return undefined;
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}
