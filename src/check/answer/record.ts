/**
 * Records what a fresh `check` reads, so that its answer can be kept (memo-format.ts) and printed again
 * by a later run that would read the same. Recording sits under everything: node's own `fs` functions
 * (each path looked at, and how), `process.env` (each variable read), the output streams (what was
 * written), and the ways a run could depend on something no stat can see (a child process, a worker, a
 * network connection, a write outside the server's own folders), each of which means the answer is not
 * kept. One place for every tool: no adapter says what it read.
 */
import childProcess from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { syncBuiltinESMExports } from "node:module";
import { fileURLToPath } from "node:url";
import { loadedWorkerThreads, watchThreadStarts } from "../../exec/worker-threads.js";
import { isNormalAbsolute } from "../../paths/fast-relative.js";
import {
  answersDir,
  changedAtMs,
  depStates,
  memoKey,
  memoName,
  MEMO_FORMAT,
  NATIVE_ENV,
  RECENT_DEPS,
  splitDep,
  streamsShape,
  type AnswerMemo,
  type DepKind,
} from "./memo-format.js";

/** A state changed less than this before the run started may change again in the same clock tick, unseen. */
const RACY_MS = 100;
/**
 * A time in whole seconds is taken for one of a file system that keeps no finer (ext3, FAT's two seconds, some
 * network ones): there a write in the same second or two leaves it as it was, so the window is that wide.
 */
const COARSE_RACY_MS = 2_100;

/** Whether a state changed so close to the run's start (`startedMs`) that a later change could look the same. */
export function racy(changedMs: number | undefined, startedMs: number): boolean {
  if (changedMs === undefined) return false;
  return changedMs >= startedMs - (changedMs % 1000 === 0 ? COARSE_RACY_MS : RACY_MS);
}
/** Answers kept at most (the oldest go first): one per command line and folder. */
const MAX_MEMOS = 256;

type Patch = () => void;

const FOLLOWED_SYNC = [
  "statSync",
  "existsSync",
  "accessSync",
  "readFileSync",
  "readdirSync",
  "opendirSync",
] as const;
const FOLLOWED_ASYNC = [
  "stat",
  "exists",
  "access",
  "readFile",
  "readdir",
  "opendir",
  "createReadStream",
] as const;
const FOLLOWED_PROMISES = ["stat", "access", "readFile", "readdir", "opendir"] as const;
const UNFOLLOWED = ["lstat", "lstatSync", "readlink", "readlinkSync"] as const;
const UNFOLLOWED_PROMISES = ["lstat", "readlink"] as const;
const WRITERS = [
  "writeFile",
  "appendFile",
  "mkdir",
  "rename",
  "unlink",
  "rm",
  "rmdir",
  "copyFile",
  "cp",
  "symlink",
  "link",
  "chmod",
  "chown",
  "lchown",
  "utimes",
  "lutimes",
  "truncate",
  "mkdtemp",
] as const;
const SPAWNERS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;

// Node's own, before any wrapping: what a descriptor's path is.
const readlinkSync = fs.readlinkSync;
/** A path through an open folder's descriptor (src/paths/safe-dir.ts walks the tree that way). */
const THROUGH_FD = /^\/(?:proc\/self|proc\/thread-self|dev)\/fd\/(\d+)(\/.*)?$/;

/**
 * A path argument as an absolute path that means the same in another process: one through a descriptor
 * (/proc/self/fd/N/...) as the folder it is open on now. Undefined for a descriptor itself.
 */
function pathOf(arg: unknown): string | undefined {
  let file: string;
  // Most reads name a path already in path.resolve's form: resolving each again took ~3 ms of a fresh check.
  if (typeof arg === "string") file = isNormalAbsolute(arg) ? arg : path.resolve(arg);
  else if (arg instanceof URL) {
    if (arg.protocol !== "file:") return undefined;
    file = fileURLToPath(arg);
  } else if (Buffer.isBuffer(arg)) file = path.resolve(arg.toString());
  else return undefined;
  const fd = file.startsWith("/proc/") || file.startsWith("/dev/") ? THROUGH_FD.exec(file) : null;
  if (!fd) return file;
  // Throws when the descriptor is not open: the caller refuses the answer.
  return readlinkSync(`/proc/self/fd/${fd[1]}`) + (fd[2] ?? "");
}

/** Whether open()'s flags may write. */
function writesByFlags(flags: unknown): boolean {
  if (flags === undefined || flags === null) return false;
  if (typeof flags === "number")
    return (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT)) !== 0;
  return /[wa+]/.test(String(flags));
}

const within = (dir: string, file: string) => file === dir || file.startsWith(dir + path.sep);

export class AnswerRecorder {
  private readonly deps = new Map<string, Set<DepKind>>();
  private readonly envRead = new Map<string, string | null>();
  private readonly output: [1 | 2, string][] = [];
  private readonly written = new Set<string>();
  private readonly ownDirs = new Set<string>();
  private readonly ownFiles = new Set<string>();
  private readonly patches: Patch[] = [];
  private auditLog?: { file: string; maxBytes: number; lines: string[] };
  private refusal?: string;
  private stopped = false;
  /** The environment to read through (process.env while recording). */
  readonly env: NodeJS.ProcessEnv;
  /** The stderr writer of the progress display: transient, never kept. */
  readonly progressWrite: (chunk: string) => boolean;
  private readonly startedMs = Date.now();
  private readonly realEnv = process.env;
  private readonly threadsLoadedAtStart = loadedWorkerThreads();

  private constructor() {
    this.env = this.watchEnv();
    this.progressWrite = process.stderr.write.bind(process.stderr) as (chunk: string) => boolean;
    this.patchFs();
    this.patchRest();
    this.patchStream(process.stdout, 1);
    this.patchStream(process.stderr, 2);
    // An ES module's named imports of node's modules (the unbundled command line) see the wrapped ones too.
    syncBuiltinESMExports();
  }

  /** Starts recording this process (a fresh `check`, not the daemon: one run per process). */
  static start(): AnswerRecorder {
    return new AnswerRecorder();
  }

  /** Why the answer will not be kept, if it will not. */
  get refused(): string | undefined {
    return this.refusal;
  }

  /** The answer will not be kept (the first reason stays). */
  refuse(reason: string): void {
    this.refusal ??= reason;
  }

  /**
   * A folder of the server's own (its caches): read and written freely, never a dependency. Not one that
   * holds a path being checked or lies inside one: what is checked is always a dependency (and a write
   * there refuses the answer).
   */
  ownFolder(dir: string, checked: readonly string[]): void {
    const own = path.resolve(dir);
    if (checked.some((p) => within(own, path.resolve(p)) || within(path.resolve(p), own))) return;
    this.ownDirs.add(own);
  }

  /** A file of the server's own (the audit log): read and written freely, never a dependency. */
  ownFile(file: string): void {
    this.ownFiles.add(path.resolve(file));
  }

  /** An audit entry the run appended (engine/audit-log.ts). */
  audited(file: string, maxBytes: number, entry: Record<string, unknown>): void {
    if (this.auditLog && this.auditLog.file !== file) return this.refuse("two audit logs");
    this.auditLog ??= { file, maxBytes, lines: [] };
    const { timestamp: _now, details, ...rest } = entry;
    const text = JSON.stringify({ ...rest, details: { ...(details as object), replayed: true } });
    this.auditLog.lines.push(text.slice(1));
  }

  /** The path an argument names, or undefined; a path no other process could look at refuses the answer. */
  private named(arg: unknown): string | undefined {
    try {
      return pathOf(arg);
    } catch {
      this.refuse(`looked at ${String(arg)}, whose folder it could not name`);
      return undefined;
    }
  }

  private see(arg: unknown, kind: DepKind): void {
    // Refused: nothing will be kept, so nothing more is noted (a check after an edit is refused when it
    // runs the tool, and reads on).
    if (this.refusal !== undefined) return;
    const file = this.named(arg);
    if (file === undefined) return;
    const kinds = this.deps.get(file);
    if (kinds) kinds.add(kind);
    else this.deps.set(file, new Set([kind]));
  }

  private wrote(arg: unknown): void {
    if (this.refusal !== undefined) return;
    const file = this.named(arg);
    if (file !== undefined) this.written.add(file);
  }

  /** Replaces obj[name] by a function that tells `before` its arguments first; undone by stop(). */
  private wrap(obj: object, name: string, before: (args: unknown[]) => void): void {
    const target = obj as Record<string, unknown>;
    const original = target[name];
    if (typeof original !== "function") return;
    const fn = original as (...args: unknown[]) => unknown;
    const wrapped = function (this: unknown, ...args: unknown[]) {
      before(args);
      return fn.apply(this, args);
    };
    // realpathSync.native and friends hang off the function.
    for (const key of Object.keys(fn))
      (wrapped as unknown as Record<string, unknown>)[key] = (fn as never)[key];
    target[name] = wrapped;
    this.patches.push(() => {
      target[name] = original;
    });
  }

  private patchFs(): void {
    const p = fs.promises as unknown as object;
    for (const name of FOLLOWED_SYNC) this.wrap(fs, name, (a) => this.see(a[0], "s"));
    for (const name of FOLLOWED_ASYNC) this.wrap(fs, name, (a) => this.see(a[0], "s"));
    for (const name of FOLLOWED_PROMISES) this.wrap(p, name, (a) => this.see(a[0], "s"));
    for (const name of UNFOLLOWED) this.wrap(fs, name, (a) => this.see(a[0], "l"));
    for (const name of UNFOLLOWED_PROMISES) this.wrap(p, name, (a) => this.see(a[0], "l"));
    for (const name of ["realpath", "realpathSync"]) {
      const holder = (fs as unknown as Record<string, object>)[name] as object;
      this.wrap(holder, "native", (a) => this.see(a[0], "r"));
      this.wrap(fs, name, (a) => this.see(a[0], "r"));
    }
    this.wrap(p, "realpath", (a) => this.see(a[0], "r"));
    const open = (a: unknown[]) => (writesByFlags(a[1]) ? this.wrote(a[0]) : this.see(a[0], "s"));
    this.wrap(fs, "open", open);
    this.wrap(fs, "openSync", open);
    this.wrap(p, "open", open);
    this.wrap(fs, "createWriteStream", (a) => this.wrote(a[0]));
    for (const name of WRITERS) {
      const both = (a: unknown[]) => {
        this.wrote(a[0]);
        if (
          name === "rename" ||
          name === "copyFile" ||
          name === "cp" ||
          name === "link" ||
          name === "symlink"
        )
          this.wrote(a[1]);
      };
      this.wrap(fs, name, both);
      this.wrap(fs, `${name}Sync`, both);
      this.wrap(p, name, both);
    }
    // A listing of a whole subtree depends on every folder in it: not followed here.
    for (const name of ["readdirSync", "readdir"])
      this.wrap(fs, name, (a) => {
        if ((a[1] as { recursive?: boolean } | undefined)?.recursive) this.refuse("a recursive listing");
      });
  }

  private patchRest(): void {
    for (const name of SPAWNERS)
      this.wrap(childProcess, name, (a) => this.refuse(`ran ${path.basename(String(a[0]))}`));
    this.wrap(net.Socket.prototype, "connect", () => this.refuse("a network connection"));
    // Our threads start through startWorker, which says so; a thread a package starts (piscina) needs
    // node:worker_threads loaded, which `finish` looks for. Not patched here: loading the module to patch
    // it took ~3.5 ms of every fresh check.
    this.patches.push(watchThreadStarts(() => this.refuse("a worker thread")));
  }

  private patchStream(stream: NodeJS.WriteStream, which: 1 | 2): void {
    this.wrap(stream, "write", (a) => {
      const chunk = a[0];
      if (typeof chunk === "string") this.output.push([which, chunk]);
      else if (chunk instanceof Uint8Array) this.output.push([which, Buffer.from(chunk).toString("utf8")]);
    });
    // write() lives on the prototype: the wrap set an own property; removing it restores the prototype's.
    this.patches.push(() => {
      delete (stream as unknown as Record<string, unknown>).write;
    });
  }

  /** process.env through a proxy that notes each variable read; enumerating it makes every one a dependency. */
  private watchEnv(): NodeJS.ProcessEnv {
    const real = this.realEnv;
    const note = (key: string | symbol) => {
      if (typeof key === "string" && !this.envRead.has(key)) this.envRead.set(key, real[key] ?? null);
    };
    const proxy = new Proxy(real, {
      get: (target, key) => (note(key), Reflect.get(target, key) as unknown),
      has: (target, key) => (note(key), Reflect.has(target, key)),
      getOwnPropertyDescriptor: (target, key) => (note(key), Reflect.getOwnPropertyDescriptor(target, key)),
      ownKeys: (target) => {
        for (const key of Reflect.ownKeys(target)) note(key);
        return Reflect.ownKeys(target);
      },
      set: (target, key, value) => {
        if (typeof key === "string") this.refuse(`set ${key} in its environment`);
        return Reflect.set(target, key, value);
      },
      deleteProperty: (target, key) => {
        if (typeof key === "string") this.refuse(`unset ${key} in its environment`);
        return Reflect.deleteProperty(target, key);
      },
    });
    process.env = proxy;
    this.patches.push(() => {
      process.env = real;
    });
    return proxy;
  }

  /** Stops recording (idempotent): every function back as it was. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const undo of this.patches.reverse()) undo();
    syncBuiltinESMExports();
  }

  /**
   * Stops, and keeps the answer when it can be replayed: exit code 0 or 1, nothing refused, nothing written
   * outside the server's own folders, nothing read changed in the run or just before it. Resolves to why
   * it was not kept, or undefined when it was.
   */
  finish(code: number, argv: readonly string[], cwd: string, buildId: string): string | undefined {
    this.stop();
    if (!this.threadsLoadedAtStart && loadedWorkerThreads()) this.refuse("a worker thread");
    const why = this.whyNot(code);
    if (why) return why;
    // The Node that ran it: a replay runs for the same executable, unchanged.
    this.see(process.execPath, "s");
    const deps: AnswerMemo["deps"] = {};
    const changedAt: { dep: [string, string]; ms: number }[] = [];
    for (const [file, kinds] of this.deps) {
      if (this.isOwn(file)) continue;
      const states = depStates(file, kinds);
      let ms = -Infinity;
      for (const state of [states.s, states.l]) {
        const at = state === undefined ? undefined : changedAtMs(state);
        if (at !== undefined && racy(at, this.startedMs))
          return `${file} changed during the run or just before`;
        if (at !== undefined) ms = Math.max(ms, at);
      }
      const [dir, name] = splitDep(file);
      (deps[dir] ??= {})[name] = states;
      if (ms > -Infinity) changedAt.push({ dep: [dir, name], ms });
    }
    const recent = changedAt
      .sort((a, b) => b.ms - a.ms)
      .slice(0, RECENT_DEPS)
      .map((c) => c.dep);
    const env: AnswerMemo["env"] = Object.fromEntries(this.envRead);
    for (const name of NATIVE_ENV) env[name] = this.realEnv[name] ?? null;
    const key = memoKey(buildId, cwd, argv);
    const memo: AnswerMemo = {
      format: MEMO_FORMAT,
      key,
      node: process.execPath,
      env,
      streams: streamsShape(process.stdout, process.stderr),
      deps,
      recent,
      output: this.output,
      code,
      audit: this.auditLog,
      storedAt: Date.now(),
    };
    try {
      writeMemo(answersDir(this.realEnv), memoName(key), JSON.stringify(memo));
    } catch (err) {
      return `not written: ${err instanceof Error ? err.message : String(err)}`;
    }
    return undefined;
  }

  private isOwn(file: string): boolean {
    if (this.ownFiles.has(file)) return true;
    for (const dir of this.ownDirs) if (within(dir, file)) return true;
    return false;
  }

  /** A write the answer survives: into the server's own files, or making a folder they are in. */
  private ownWrite(file: string): boolean {
    if (this.isOwn(file)) return true;
    for (const own of [...this.ownFiles, ...this.ownDirs]) if (within(file, own)) return true;
    return false;
  }

  private whyNot(code: number): string | undefined {
    if (code !== 0 && code !== 1) return `exit code ${code}`;
    if (this.refusal) return this.refusal;
    for (const file of this.written) if (!this.ownWrite(file)) return `wrote ${file}`;
    return undefined;
  }
}

/** Writes the memo into place: the folder owner-only and ours, a new file (exclusive, no link followed) renamed over. */
function writeMemo(dir: string, name: string, text: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder`);
  if (typeof process.getuid === "function" && st.uid !== process.getuid())
    throw new Error(`${dir} belongs to another user`);
  const temp = path.join(dir, `.${name}.${process.pid}.${process.hrtime.bigint()}`);
  const fd = fs.openSync(
    temp,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
    0o600,
  );
  try {
    fs.writeFileSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, path.join(dir, name));
  pruneMemos(dir);
}

/** Keeps the newest MAX_MEMOS answers. */
function pruneMemos(dir: string): void {
  const names = fs.readdirSync(dir).filter((n) => n.endsWith(".json") && !n.startsWith("."));
  if (names.length <= MAX_MEMOS) return;
  const aged = names
    .map((n) => ({ n, t: fs.statSync(path.join(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => a.t - b.t);
  for (const { n } of aged.slice(0, names.length - MAX_MEMOS)) fs.rmSync(path.join(dir, n), { force: true });
}
