/**
 * A check's answer kept for a run that would read exactly what it read (the "answer memo"): what a fresh
 * `check` printed and exited with, with everything that answer came from. The run that stored it
 * recorded every file, folder and link it looked at and every variable of the environment it read
 * (record.ts); a later `check` with the same arguments in the same folder prints it again, without
 * starting the command line, when a stat of each finds it as it was (replay.ts). Shared by both sides:
 * node's own modules only, so the replay's bundle stays small.
 */
import { closeSync, fstatSync, lstatSync, openSync, readFileSync, realpathSync, statSync } from "node:fs";
import type { Stats } from "node:fs";
import { constants } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/** Bumped whenever the stored shape or the meaning of a dependency changes. */
export const MEMO_FORMAT = 3;

/** How a path was looked at: followed (`s`: stat, read, listed), not followed (`l`), resolved (`r`). */
export type DepKind = "s" | "l" | "r";

/**
 * A path's state as a dependency: for `s`/`l` the stat (device, inode, mode, size, modification and change
 * times in ms with their fraction) or `!` and the error code (`!ENOENT`: a file that appears counts); for
 * `r` the resolved path or the error. `s` is `=` when it is `l`'s (not a link: one stat answers both).
 */
export type DepState = string;

export interface AnswerMemo {
  format: number;
  /** What the memo is for (its file name is a hash of it): build, user, folder, command line. */
  key: string;
  /** The Node that ran the check (process.execPath; a dependency too): a replay runs only for the same. */
  node: string;
  /** Every variable of the environment the run read, with its value (null: unset). */
  env: Record<string, string | null>;
  /** What the output streams were: a terminal or not, and its width (colours and layout follow them). */
  streams: string;
  /** folder → name in it ("" for the folder itself) → kind → state. */
  deps: Record<string, Record<string, Partial<Record<DepKind, DepState>>>>;
  /**
   * The deps changed last ([folder, name] of `deps`), newest first, looked at before the others: the file
   * just edited is most often one edited lately, and a replay that misses then stops after a few stats
   * instead of most of them (on pylint, ~2,400). Only the order of the look changes.
   */
  recent?: [string, string][];
  /** What the run wrote to stdout and stderr, in order: [1 or 2, text]. */
  output: [1 | 2, string][];
  /** The exit code (0 or 1: only a run that checked everything is kept). */
  code: number;
  /**
   * The audit entries the run appended, appended again when the answer is replayed: each line's text after
   * its time (`"operation":...,"details":{...,"replayed":true}}`), written as `{"timestamp":"<now>",` + it.
   */
  audit?: { file: string; maxBytes: number; lines: string[] };
  /** When it was stored (ms since the epoch). */
  storedAt: number;
}

/**
 * Variables read by node itself (not through process.env: the home and temporary folders, the time zone and
 * the locale ICU formats with) or by the bin: every memo depends on them.
 */
export const NATIVE_ENV = [
  "HOME",
  "TMPDIR",
  "TMP",
  "TEMP",
  "PATH",
  "XDG_CACHE_HOME",
  "NO_COLOR",
  "TZ",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "LC_NUMERIC",
  "LC_TIME",
] as const;

/** MCP_CODE_QUALITY_CHECK_REPLAY: "0" keeps and replays no answer, "explain" says why each is or is not. */
export const REPLAY_ENV = "MCP_CODE_QUALITY_CHECK_REPLAY";

export function replayMode(env: NodeJS.ProcessEnv): "on" | "off" | "explain" {
  const value = env[REPLAY_ENV];
  return value === "0" || value === "false" ? "off" : value === "explain" ? "explain" : "on";
}

/** The folder the answers are kept in: beside the result cache's default folder, per user. */
export function answersDir(env: NodeJS.ProcessEnv): string {
  const base =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)
      ? env.XDG_CACHE_HOME
      : path.join(homedir(), ".cache");
  return path.join(base, "mcp-code-quality", "answers");
}

/**
 * What a memo is for: build, user, folder and command line (the Node is the memo's `node`, so that a
 * replayer that is not Node, native/check, finds the memo without asking Node its version).
 */
export function memoKey(buildId: string, cwd: string, argv: readonly string[]): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : -1;
  return JSON.stringify([MEMO_FORMAT, buildId, uid, cwd, argv]);
}

/**
 * The memo's file name: two 32-bit FNV-1a hashes of its key (the memo holds the key, so a collision is a
 * miss, never another command's answer; node's crypto would cost the replay more to load than it runs).
 */
export function memoName(key: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 13);
  }
  return `${(a >>> 0).toString(16).padStart(8, "0")}${(b >>> 0).toString(16).padStart(8, "0")}.json`;
}

/** The streams' shape as it decides the output (a terminal, and how wide). */
export function streamsShape(
  stdout: { isTTY?: boolean; columns?: number },
  stderr: { isTTY?: boolean; columns?: number },
): string {
  const one = (s: { isTTY?: boolean; columns?: number }) =>
    s.isTTY === true ? `tty:${s.columns ?? 0}` : "-";
  return `${one(stdout)},${one(stderr)}`;
}

const errCode = (err: unknown) => `!${(err as NodeJS.ErrnoException).code ?? "ERR"}`;

const statState = (st: Stats): DepState =>
  `${st.dev}:${st.ino}:${st.mode}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;

/** A path's state now, looked at as `kind`. */
export function depState(file: string, kind: DepKind): DepState {
  try {
    if (kind === "r") return realpathSync.native(file);
    const st =
      kind === "l" ? lstatSync(file, { throwIfNoEntry: false }) : statSync(file, { throwIfNoEntry: false });
    return st ? statState(st) : "!ENOENT";
  } catch (err) {
    return errCode(err);
  }
}

/** A path's states as recorded: `s` written `=` when it is `l`'s. */
export function depStates(file: string, kinds: Iterable<DepKind>): Partial<Record<DepKind, DepState>> {
  const states: Partial<Record<DepKind, DepState>> = {};
  for (const kind of kinds) states[kind] = depState(file, kind);
  if (states.s !== undefined && states.s === states.l && !states.l.startsWith("!")) states.s = "=";
  return states;
}

/** Whether a path's states hold now (one lstat for `s` and `l` when it is not a link). */
function holds(file: string, states: Partial<Record<DepKind, DepState>>): boolean {
  if (states.l !== undefined && depState(file, "l") !== states.l) return false;
  if (states.s !== undefined && states.s !== "=" && depState(file, "s") !== states.s) return false;
  if (states.r !== undefined && depState(file, "r") !== states.r) return false;
  return true;
}

/**
 * The latest change time (ms) a state records, for the racy-write rule: a state whose file changed in the
 * same clock tick as the run read it could change again unseen.
 */
export function changedAtMs(state: DepState): number | undefined {
  const parts = state.split(":");
  if (parts.length !== 6 || state.startsWith("!")) return undefined;
  return Math.max(Number(parts[4]), Number(parts[5]));
}

/** A path as the memo keeps it: its folder and its name there. */
export function splitDep(file: string): [string, string] {
  const dir = path.dirname(file);
  return dir === file ? [file, ""] : [dir, path.basename(file)];
}

/** The first dependency whose state differs now (a description), or undefined when all hold. */
export function firstChanged(memo: AnswerMemo, env: NodeJS.ProcessEnv): string | undefined {
  for (const [name, value] of Object.entries(memo.env))
    if ((env[name] ?? null) !== value) return `environment variable ${name}`;
  const depFile = (dir: string, name: string) =>
    name === "" ? dir : dir === "/" ? `/${name}` : `${dir}/${name}`;
  for (const [dir, name] of memo.recent ?? []) {
    const states = memo.deps[dir]?.[name];
    if (states && !holds(depFile(dir, name), states)) return depFile(dir, name);
  }
  for (const [dir, names] of Object.entries(memo.deps))
    for (const [name, states] of Object.entries(names))
      if (!holds(depFile(dir, name), states)) return depFile(dir, name);
  return undefined;
}

/** How many deps a memo names as changed last (AnswerMemo.recent). */
export const RECENT_DEPS = 16;

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** Each folder's deps an object of names, each name's states an object of strings (as recorded). */
function validDeps(deps: unknown): boolean {
  return (
    isRecord(deps) &&
    Object.values(deps).every(
      (names) =>
        isRecord(names) &&
        Object.values(names).every(
          (states) => isRecord(states) && Object.values(states).every((v) => typeof v === "string"),
        ),
    )
  );
}

/** The output as recorded: [stream, text] pairs, stream 1 (stdout) or 2 (stderr). */
function validOutput(output: unknown): boolean {
  return (
    Array.isArray(output) &&
    output.every(
      (c) => Array.isArray(c) && c.length === 2 && (c[0] === 1 || c[0] === 2) && typeof c[1] === "string",
    )
  );
}

/** The memo in a file's text, or undefined when it is not one (damaged, another format). */
export function parseMemo(text: string): AnswerMemo | undefined {
  try {
    const memo = JSON.parse(text) as AnswerMemo;
    if (
      memo?.format !== MEMO_FORMAT ||
      typeof memo.key !== "string" ||
      typeof memo.node !== "string" ||
      !isRecord(memo.env) ||
      !validDeps(memo.deps) ||
      !validOutput(memo.output) ||
      (memo.code !== 0 && memo.code !== 1) ||
      typeof memo.streams !== "string"
    )
      return undefined;
    return memo;
  } catch {
    return undefined;
  }
}

/**
 * Reads a memo file without following a link, and only when this user owns it and nobody else may write
 * it (entries are printed as answers).
 */
export function readMemoFile(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const st = fstatSync(fd);
    if (!st.isFile() || (st.mode & 0o022) !== 0) return undefined;
    if (typeof process.getuid === "function" && st.uid !== process.getuid()) return undefined;
    return readFileSync(fd, "utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
