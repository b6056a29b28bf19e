/**
 * Which check daemon a `check --daemon` talks to. A daemon runs tools with the environment it was started
 * with, so a client may use one only when everything that decides a result is the same: the server's build,
 * the Node that runs it, the user, and the environment (PATH, VIRTUAL_ENV, NO_COLOR...). The key hashes them
 * all; a client whose environment differs gets a daemon of its own. Pure.
 */
import fs from "node:fs";
import path from "node:path";
import { sha256 } from "../../cache/hash.js";

/** Variables a shell changes from one command to the next that no tool reads for its result. */
const VOLATILE = new Set(["_", "PWD", "OLDPWD", "SHLVL", "COLUMNS", "LINES", "TERM_SESSION_ID", "WINDOWID"]);

/** The variables that turn the daemon on and tune it: not part of what the tools see. */
export const DAEMON_ENV = "MCP_CODE_QUALITY_CHECK_DAEMON";
export const DAEMON_IDLE_ENV = "MCP_CODE_QUALITY_CHECK_DAEMON_IDLE";

export interface DaemonIdentity {
  buildId: string;
  execPath: string;
  /** Which file that is (executableIdentity): a Node replaced in place is another Node. */
  nodeIdentity: string;
  uid: number | string;
  env: NodeJS.ProcessEnv;
}

/** The environment as the key sees it: sorted, volatile and daemon variables left out. */
export function keyedEnv(env: NodeJS.ProcessEnv): [string, string][] {
  return Object.entries(env)
    .filter(
      (e): e is [string, string] =>
        e[1] !== undefined && !VOLATILE.has(e[0]) && e[0] !== DAEMON_ENV && e[0] !== DAEMON_IDLE_ENV,
    )
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * Variables git and the human set for one commit (GIT_INDEX_FILE, GIT_AUTHOR_DATE, GIT_PREFIX..., and
 * MCQ_ALLOW_PROTECTED, the human's confirmation for this commit): a `hook pre-commit` client leaves them out
 * of its key (or each commit would start a daemon of its own) and hands them over with its request; the
 * daemon runs that request with them, never with its own.
 */
export function isPerCommitVar(name: string): boolean {
  return (
    name.startsWith("GIT_") || name === "MCQ_ALLOW_PROTECTED" || name === "MCP_CODE_QUALITY_HOOK_TIMINGS"
  );
}

/** `env` split into what decides the hook's daemon (`shared`) and what one commit sets (`perCommit`). */
export function splitPerCommit(env: NodeJS.ProcessEnv): {
  shared: NodeJS.ProcessEnv;
  perCommit: Record<string, string>;
} {
  const shared: NodeJS.ProcessEnv = {};
  const perCommit: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (isPerCommitVar(k)) perCommit[k] = v;
    else shared[k] = v;
  }
  return { shared, perCommit };
}

/**
 * The environment the daemon runs one hook request with: its own (which the key made the client's, the
 * per-commit variables apart) without any per-commit variable of its own, and the client's.
 */
export function requestEnv(own: NodeJS.ProcessEnv, perCommit: Record<string, string>): NodeJS.ProcessEnv {
  return { ...splitPerCommit(own).shared, ...perCommit };
}

/**
 * The Node that runs the daemon, by its file (device, inode, size, mtime) rather than its version: the
 * native client (native/check/daemon.go) finds the daemon without starting Node to ask it, and a Node
 * upgraded in place is a new file.
 */
export function executableIdentity(file: string): string {
  const st = fs.statSync(file);
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
}

/** The key of the daemon for `id`; native/check/daemon.go computes the same, byte for byte. */
export function daemonKey(id: DaemonIdentity): string {
  return sha256(
    JSON.stringify([id.buildId, id.execPath, id.nodeIdentity, String(id.uid), keyedEnv(id.env)]),
  ).slice(0, 24);
}

/** The daemon's socket in its folder (daemon-dir.ts: 0700, bound into no sandbox). */
export function socketPathFor(dir: string, key: string): string {
  return path.join(dir, `check-${key}.sock`);
}

/**
 * Why this environment cannot use a daemon, if it cannot: a relative PATH entry names folders relative to
 * the caller's working directory, which the daemon does not share.
 */
export function daemonUnfit(env: NodeJS.ProcessEnv): string | undefined {
  // An empty entry is the working directory too.
  const relative = (env.PATH ?? "").split(path.delimiter).filter((p) => !path.isAbsolute(p));
  if (relative.length)
    return `PATH holds relative folders (${relative.map((p) => (p === "" ? "an empty entry" : p)).join(", ")})`;
  return undefined;
}

/** A unix socket path longer than this cannot be bound (sun_path is 108 bytes on Linux). */
export const MAX_SOCKET_PATH = 107;
