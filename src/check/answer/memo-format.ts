/**
 * A check's answer kept for a run that would read exactly what it read (the "answer memo"): what a fresh
 * `check` printed and exited with, with everything that answer came from. The run that stored it
 * recorded every file, folder and link it looked at and every variable of the environment it read
 * (record.ts); a later `check` with the same arguments in the same folder prints it again, without
 * starting the command line, when a stat of each finds it as it was (replay.ts). Shared by both sides:
 * node's own modules only, so the replay's bundle stays small.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Bumped whenever the stored shape or the meaning of a dependency changes. */
export const MEMO_FORMAT = 1;

/** How a path was looked at: followed (`s`: stat, read, listed), not followed (`l`), resolved (`r`). */
export type DepKind = "s" | "l" | "r";

/**
 * A path's state as a dependency: for `s`/`l` the stat (device, inode, mode, size, mtime and ctime in
 * nanoseconds) or the error code (`ENOENT`...); for `r` the resolved path or the error code.
 */
export type DepState = string;

export interface AnswerMemo {
  format: number;
  /** Every variable of the environment the run read, with its value (null: unset). */
  env: Record<string, string | null>;
  /** What the output streams were: a terminal or not, and its width (colours and layout follow them). */
  streams: string;
  /** path → kind → state. */
  deps: Record<string, Partial<Record<DepKind, DepState>>>;
  /** What the run wrote to stdout and stderr, in order: [1 or 2, text]. */
  output: [1 | 2, string][];
  /** The exit code (0 or 1: only a run that checked everything is kept). */
  code: number;
  /** The audit entries the run appended, appended again (marked replayed) when the answer is replayed. */
  audit?: { file: string; maxBytes: number; entries: Record<string, unknown>[] };
  /** When it was stored (ms since the epoch). */
  storedAt: number;
}

/** Variables read by node itself (not through process.env): every memo depends on them. */
export const NATIVE_ENV = ["HOME", "TMPDIR", "TMP", "TEMP", "PATH", "XDG_CACHE_HOME", "NO_COLOR"] as const;

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
      : path.join(os.homedir(), ".cache");
  return path.join(base, "mcp-code-quality", "answers");
}

/** The memo's file name for a command line in a folder, under a build of this Node, for this user. */
export function memoName(buildId: string, cwd: string, argv: readonly string[]): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : -1;
  const key = JSON.stringify([MEMO_FORMAT, buildId, process.version, process.arch, uid, cwd, argv]);
  return crypto.createHash("sha256").update(key).digest("hex").slice(0, 40) + ".json";
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

function statState(st: fs.BigIntStats): DepState {
  return `${st.dev}:${st.ino}:${st.mode}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** A path's state now, looked at as `kind`. */
export function depState(file: string, kind: DepKind): DepState {
  try {
    if (kind === "r") return fs.realpathSync.native(file);
    const st = kind === "l" ? fs.lstatSync(file, { bigint: true }) : fs.statSync(file, { bigint: true });
    return statState(st);
  } catch (err) {
    return errCode(err);
  }
}

/**
 * The latest change time (ns) a state records, for the racy-write rule: a state whose file changed in the
 * same clock tick as the run read it could change again unseen.
 */
export function changedAtNs(state: DepState): bigint | undefined {
  const parts = state.split(":");
  if (parts.length !== 6 || state.startsWith("!")) return undefined;
  const m = BigInt(parts[4] as string);
  const c = BigInt(parts[5] as string);
  return m > c ? m : c;
}

/** The first dependency whose state differs now (a description), or undefined when all hold. */
export function firstChanged(memo: AnswerMemo, env: NodeJS.ProcessEnv): string | undefined {
  for (const [name, value] of Object.entries(memo.env))
    if ((env[name] ?? null) !== value) return `environment variable ${name}`;
  for (const [file, kinds] of Object.entries(memo.deps))
    for (const [kind, state] of Object.entries(kinds) as [DepKind, DepState][])
      if (depState(file, kind) !== state) return file;
  return undefined;
}

/** The memo in a file's text, or undefined when it is not one (damaged, another format). */
export function parseMemo(text: string): AnswerMemo | undefined {
  try {
    const memo = JSON.parse(text) as AnswerMemo;
    if (
      memo?.format !== MEMO_FORMAT ||
      typeof memo.env !== "object" ||
      typeof memo.deps !== "object" ||
      !Array.isArray(memo.output) ||
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
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || (st.mode & 0o022) !== 0) return undefined;
    if (typeof process.getuid === "function" && st.uid !== process.getuid()) return undefined;
    return fs.readFileSync(fd, "utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
