/**
 * Race-safe reads and writes of the server's own, inside one canonical root. Every path is reached from the
 * root down one component at a time with O_NOFOLLOW, each step relative to the directory already open (on
 * Linux through /proc/self/fd/N, which resolves inside that very directory, like openat), and the root's
 * descriptor is checked to be the root itself. So a symlink swapped in after a path was checked is never
 * followed: the call refuses (path_validation) instead. Writes go to an exclusively created temp file with an
 * unpredictable name beside the target and are renamed into place (the mode kept), so a kill leaves the old
 * bytes or the new ones, never a partial file.
 *
 * Elsewhere than Linux the same checks run on the path itself (each component opened with O_NOFOLLOW and its
 * identity compared with the path's) and a window between check and use remains: see docs/path-safety.md.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import { isWithin } from "./allowlist.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_APPEND, O_NONBLOCK } = fs.constants;

/** Where `<fd>/<name>` names an entry of an open directory (Linux); undefined elsewhere. */
const FD_DIR = process.platform === "linux" && fs.existsSync("/proc/self/fd") ? "/proc/self/fd" : undefined;

/** What to do when the file itself (the last component) is a symbolic link. */
export type LinkPolicy =
  /** Refuse (the server's own state: `.mcp-cache/`). */
  | "refuse"
  /** Follow it once when its real path is inside the root, then reach that path without links. */
  | "inside"
  /** Writes only: replace the link itself, never writing through it. */
  | "replace";

export interface SafeStat {
  mode: number;
  size: number;
  dev: number;
  ino: number;
}

export interface SafeRead {
  content: Buffer;
  stat: SafeStat;
}

export interface WriteOptions {
  /** Permission bits of the written file; default: those of the file replaced, else 0o644. */
  mode?: number;
  /** Folders up to the file are created with this mode when missing. */
  createDirs?: number;
  /** Refuse (error_type locked) unless the file still holds exactly this (null: does not exist). */
  expect?: string | Buffer | null;
  /** fsync the file before the rename (journals). */
  fsync?: boolean;
  links?: LinkPolicy;
}

/**
 * Told of each file write before it is renamed into place (the path and sha256 of the new bytes), inside
 * the async context that set it: a transaction logs what it writes, so recovery can tell its writes from
 * later edits, and refuses a write over content it does not know (another writer's, after a lost lock).
 */
export const writeObserver = new AsyncLocalStorage<WriteObserver>();

/**
 * Called just before the rename, after `expect` was checked: `sha256` of the new bytes (undefined for a
 * write in chunks) and `basis`, the sha256 of what the file holds now when the write said what it expected
 * (null: nothing; undefined: it said nothing). Throwing refuses the write (its temp file is removed).
 */
export type WriteObserver = (
  file: string,
  sha256: string | undefined,
  basis: string | null | undefined,
) => void;

class LinkFound extends Error {}

function refuse(root: string, message: string): never {
  throw new ToolError("path_validation", message, { allowed_paths: [root] });
}

function errCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

function checkName(name: string): string {
  if (!name || name === "." || name === ".." || name.includes("/") || name.includes("\0"))
    throw new Error(`not a single path component: ${JSON.stringify(name)}`);
  return name;
}

function toStat(st: fs.Stats): SafeStat {
  return { mode: st.mode & 0o7777, size: st.size, dev: st.dev, ino: st.ino };
}

/** A directory open by descriptor, reached from the root without following links. */
export class SafeDir {
  constructor(
    readonly root: string,
    /** Its path when it was opened (for messages and non-Linux fallbacks). */
    readonly path: string,
    private fd: number,
  ) {}

  /** A path naming `name` inside this directory, whatever was renamed or swapped since it was opened. */
  entry(name: string): string {
    return FD_DIR ? `${FD_DIR}/${this.fd}/${checkName(name)}` : path.join(this.path, checkName(name));
  }

  /** The entries of the directory. */
  list(): fs.Dirent[] {
    return fs.readdirSync(FD_DIR ? `${FD_DIR}/${this.fd}` : this.path, { withFileTypes: true });
  }

  /** lstat of an entry; undefined when absent. */
  lstat(name: string): fs.Stats | undefined {
    try {
      return fs.lstatSync(this.entry(name));
    } catch (err) {
      if (errCode(err) === "ENOENT") return undefined;
      throw err;
    }
  }

  /** Opens a child folder without following a link (creating it with `create` as mode when missing). */
  child(name: string, create?: number): SafeDir {
    const at = this.entry(name);
    if (create !== undefined)
      try {
        fs.mkdirSync(at, { mode: create });
      } catch (err) {
        if (errCode(err) !== "EEXIST") throw err;
      }
    let fd: number;
    try {
      fd = fs.openSync(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (err) {
      const code = errCode(err);
      if (code === "ELOOP" || code === "ENOTDIR") throw new LinkFound(path.join(this.path, name));
      throw err;
    }
    const full = path.join(this.path, name);
    if (!FD_DIR) checkIdentity(this.root, fd, full);
    return new SafeDir(this.root, full, fd);
  }

  /** fstat of the directory itself. */
  stat(): fs.Stats {
    return fs.fstatSync(this.fd);
  }

  /** chmod of the directory itself (by descriptor). */
  chmod(mode: number): void {
    fs.fchmodSync(this.fd, mode);
  }

  close(): void {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
  }
}

/** Without /proc: the descriptor must be the directory the path names now, and the path must be canonical. */
function checkIdentity(root: string, fd: number, dir: string): void {
  const a = fs.fstatSync(fd);
  const b = fs.lstatSync(dir);
  if (a.dev !== b.dev || a.ino !== b.ino || fs.realpathSync.native(dir) !== dir) {
    fs.closeSync(fd);
    refuse(root, `${dir} changed while it was opened; nothing was read or written there`);
  }
}

function openRoot(root: string): SafeDir {
  if (!path.isAbsolute(root)) throw new Error(`not an absolute root: ${root}`);
  const fd = fs.openSync(root, O_RDONLY | O_DIRECTORY);
  if (FD_DIR) {
    // The descriptor's real path: a root reached through a link swapped into its path shows here.
    let real: string;
    try {
      real = fs.readlinkSync(`${FD_DIR}/${fd}`);
    } catch {
      real = "";
    }
    if (real !== root) {
      fs.closeSync(fd);
      refuse(root, `${root} is not where it was when checked (now ${real}); nothing was read or written`);
    }
  } else checkIdentity(root, fd, root);
  return new SafeDir(root, root, fd);
}

function openDirStrict(root: string, dir: string, create?: number): SafeDir {
  if (!isWithin(root, dir)) refuse(root, `${dir} is outside ${root}`);
  let current = openRoot(root);
  try {
    for (const name of path.relative(root, dir).split(path.sep).filter(Boolean)) {
      const next = current.child(name, create);
      current.close();
      current = next;
    }
    return current;
  } catch (err) {
    current.close();
    throw err;
  }
}

/** The real path of `file` when it lies inside root; refuses otherwise. */
function realInside(root: string, file: string): string {
  let real: string;
  try {
    real = fs.realpathSync.native(file);
  } catch {
    refuse(root, `${file} is a symbolic link that leads nowhere; nothing was read or written through it`);
  }
  if (!isWithin(root, real))
    refuse(
      root,
      `${file} leads outside ${root} through a symbolic link; nothing was read or written through it`,
    );
  return real;
}

/**
 * Runs `op` on `file`'s folder opened without links. With links "inside", a link on the way (or the file
 * itself being one, when `op` throws LinkFound) is resolved once to its real path inside root, which is
 * then reached without links; a second link means a swap: refused.
 */
function withDir<T>(
  root: string,
  file: string,
  links: LinkPolicy,
  create: number | undefined,
  op: (dir: SafeDir, name: string) => T,
): T {
  const attempt = (target: string) => {
    const dir = openDirStrict(root, path.dirname(target), create);
    try {
      return op(dir, path.basename(target));
    } finally {
      dir.close();
    }
  };
  try {
    return attempt(file);
  } catch (err) {
    if (!(err instanceof LinkFound)) throw err;
    if (links === "inside") {
      const real = realInside(root, file);
      try {
        return attempt(real);
      } catch (again) {
        if (!(again instanceof LinkFound)) throw again;
      }
    }
    refuse(root, `${err.message} is a symbolic link; nothing was read or written through it`);
  }
}

/** Opens `dir` (inside root) without following any link; the caller closes it. */
export function openDirIn(root: string, dir: string, options: { create?: number } = {}): SafeDir {
  try {
    return openDirStrict(root, dir, options.create);
  } catch (err) {
    if (err instanceof LinkFound)
      refuse(
        root,
        `${err.message} is a symbolic link or not a folder; nothing was read or written through it`,
      );
    throw err;
  }
}

function openFileNoFollow(at: string, flags: number, mode?: number): number {
  try {
    return fs.openSync(at, flags | O_NOFOLLOW, mode);
  } catch (err) {
    if (errCode(err) === "ELOOP") throw new LinkFound(at);
    throw err;
  }
}

function readOpen(root: string, dir: SafeDir, name: string): SafeRead | undefined {
  let fd: number;
  try {
    fd = openFileNoFollow(dir.entry(name), O_RDONLY | O_NONBLOCK);
  } catch (err) {
    if (err instanceof LinkFound) throw new LinkFound(path.join(dir.path, name));
    if (errCode(err) === "ENOENT") return undefined;
    throw err;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) refuse(root, `${path.join(dir.path, name)} is not a regular file; it was not read`);
    return { content: fs.readFileSync(fd), stat: toStat(st) };
  } finally {
    fs.closeSync(fd);
  }
}

/** The bytes and stat of a regular file inside root, read without following a swapped link; undefined when absent. */
export function readFileIn(root: string, file: string, links: LinkPolicy = "inside"): SafeRead | undefined {
  try {
    return withDir(root, file, links, undefined, (dir, name) => readOpen(root, dir, name));
  } catch (err) {
    if (errCode(err) === "ENOENT") return undefined;
    throw err;
  }
}

/** readFileIn as UTF-8 text; throws ENOENT like fs.readFileSync when absent. */
export function readTextIn(root: string, file: string): string {
  const read = readFileIn(root, file);
  if (!read) throw Object.assign(new Error(`ENOENT: no such file: ${file}`), { code: "ENOENT" });
  return read.content.toString("utf8");
}

/** Most folders a BatchReader keeps open at once; past it, it closes them all and starts again from the root. */
const BATCH_OPEN_DIRS = 256;

/**
 * Reads many files under one root, each folder on the way opened once (from the root down without links,
 * as readFileIn does) and kept open until close(): reading the findings' files of a big project is then
 * one open per file, not one per path component (issue 29). Meant for one synchronous stretch, so the
 * folders it holds are the ones it just reached. A file that is a link, or a link on the way, goes through
 * readFileIn (resolved once inside the root, or refused), as do files outside the folders it could open.
 */
export class BatchReader {
  /** Open folders by path relative to the root ("" is the root); null: not reachable without links. */
  private readonly dirs = new Map<string, SafeDir | null>();

  constructor(readonly root: string) {}

  private dirAt(rel: string): SafeDir | null {
    const known = this.dirs.get(rel);
    if (known !== undefined) return known;
    if (this.dirs.size >= BATCH_OPEN_DIRS) this.close();
    let dir: SafeDir | null;
    try {
      if (rel === "") dir = openRoot(this.root);
      else {
        const parent = this.dirAt(path.dirname(rel) === "." ? "" : path.dirname(rel));
        dir = parent ? parent.child(path.basename(rel)) : null;
      }
    } catch {
      // A link, a missing folder or a swapped root: readFileIn says which, file by file.
      dir = null;
    }
    this.dirs.set(rel, dir);
    return dir;
  }

  /** The bytes and stat of a regular file inside the root; undefined when absent. */
  read(file: string): SafeRead | undefined {
    if (!isWithin(this.root, file)) refuse(this.root, `${file} is outside ${this.root}`);
    const rel = path.relative(this.root, path.dirname(file));
    const dir = this.dirAt(rel);
    if (!dir) return readFileIn(this.root, file);
    try {
      return readOpen(this.root, dir, path.basename(file));
    } catch (err) {
      if (err instanceof LinkFound) return readFileIn(this.root, file);
      throw err;
    }
  }

  /** read() as UTF-8 text; throws ENOENT like fs.readFileSync when absent. */
  readText(file: string): string {
    const got = this.read(file);
    if (!got) throw Object.assign(new Error(`ENOENT: no such file: ${file}`), { code: "ENOENT" });
    return got.content.toString("utf8");
  }

  close(): void {
    for (const dir of this.dirs.values()) dir?.close();
    this.dirs.clear();
  }
}

/** lstat of a path inside root reached without links; undefined when absent. */
export function lstatIn(root: string, file: string): fs.Stats | undefined {
  try {
    return withDir(root, file, "refuse", undefined, (dir, name) => dir.lstat(name));
  } catch (err) {
    if (errCode(err) === "ENOENT") return undefined;
    throw err;
  }
}

export function sha256Hex(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** A fresh temp name: unpredictable, so nothing can be planted there in advance. */
function tempName(): string {
  return `.mcq-${randomBytes(12).toString("hex")}.tmp`;
}

/** Writes `data` (bytes, or chunks of them) to a new exclusive temp file in `dir` with `mode`; returns its name. */
function writeTemp(
  dir: SafeDir,
  data: Buffer | Iterable<string | Buffer>,
  mode: number,
  sync: boolean,
): string {
  const name = tempName();
  const at = dir.entry(name);
  const fd = fs.openSync(at, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    try {
      for (const chunk of Buffer.isBuffer(data) ? [data] : data) {
        const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
        let off = 0;
        while (off < bytes.length) off += fs.writeSync(fd, bytes, off, bytes.length - off);
      }
      fs.fchmodSync(fd, mode);
      if (sync) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    fs.rmSync(at, { force: true });
    throw err;
  }
  return name;
}

function sameBytes(a: Buffer, b: string | Buffer): boolean {
  return a.equals(typeof b === "string" ? Buffer.from(b) : b);
}

/** Throws (error_type locked) unless `name` holds exactly `expect` now (null: nothing regular is there). */
function expectHeld(root: string, dir: SafeDir, name: string, expect: string | Buffer | null): void {
  const now = dir.lstat(name)?.isFile() ? readOpen(root, dir, name) : undefined;
  const matches = expect === null ? now === undefined : now !== undefined && sameBytes(now.content, expect);
  if (!matches)
    throw new ToolError(
      "locked",
      `${path.join(dir.path, name)} changed after this fix read it (another writer, or a lost lock); ` +
        "it was not overwritten",
      { file: path.join(dir.path, name) },
    );
}

/**
 * Replaces (or creates) `file` inside root atomically: exclusive temp file beside it, then rename. The file
 * keeps its mode unless `mode` is given; a link in the way is handled by `links` (default "inside").
 */
export function writeFileIn(
  root: string,
  file: string,
  data: string | Buffer | Iterable<string | Buffer>,
  options: WriteOptions = {},
): void {
  // Chunks (an output too large for one string) are written as they come; the observer then gets no hash.
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  if (options.expect !== undefined && !Buffer.isBuffer(bytes))
    throw new Error("writeFileIn: `expect` needs the whole content, not chunks");
  const links = options.links ?? "inside";
  withDir(root, file, links === "replace" ? "refuse" : links, options.createDirs, (dir, name) => {
    const existing = dir.lstat(name);
    if (existing?.isSymbolicLink() && links !== "replace") throw new LinkFound(path.join(dir.path, name));
    if (existing && !existing.isFile() && !existing.isSymbolicLink())
      refuse(root, `${path.join(dir.path, name)} is not a regular file; it was not written`);
    const mode = options.mode ?? (existing?.isFile() ? existing.mode & 0o7777 : 0o644);
    const temp = writeTemp(dir, bytes, mode, options.fsync ?? false);
    try {
      // Compared once the new bytes are on disk, just before the rename and in the same synchronous step:
      // however long the temp file took, or the caller stalled, what is replaced is what was expected.
      if (options.expect !== undefined) expectHeld(root, dir, name, options.expect);
      const basis =
        options.expect === undefined ? undefined : options.expect === null ? null : sha256Hex(options.expect);
      writeObserver.getStore()?.(
        path.join(dir.path, name),
        Buffer.isBuffer(bytes) ? sha256Hex(bytes) : undefined,
        basis,
      );
      fs.renameSync(dir.entry(temp), dir.entry(name));
    } catch (err) {
      fs.rmSync(dir.entry(temp), { force: true });
      throw err;
    }
  });
}

/** Creates `file` only when nothing (not even a dangling link) has that name; false when something does. */
export function createFileIn(root: string, file: string, data: string | Buffer, mode = 0o600): boolean {
  return withDir(root, file, "refuse", undefined, (dir, name) => {
    let fd: number;
    try {
      fd = fs.openSync(dir.entry(name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
    } catch (err) {
      if (errCode(err) === "EEXIST") return false;
      throw err;
    }
    try {
      try {
        const bytes = typeof data === "string" ? Buffer.from(data) : data;
        let off = 0;
        while (off < bytes.length) off += fs.writeSync(fd, bytes, off, bytes.length - off);
      } finally {
        fs.closeSync(fd);
      }
    } catch (err) {
      // A full disk: no part of a file is left under the name (a snapshot object named by its hash).
      fs.rmSync(dir.entry(name), { force: true });
      throw err;
    }
    return true;
  });
}

/**
 * Appends to a regular file inside root (created with `mode`), never through a link or a hard link
 * (a second name could be a file outside the root).
 */
export function appendFileIn(root: string, file: string, data: string | Buffer, mode = 0o600): void {
  withDir(root, file, "refuse", undefined, (dir, name) => {
    const fd = openFileNoFollow(dir.entry(name), O_WRONLY | O_APPEND | O_CREAT, mode);
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile() || st.nlink !== 1)
        refuse(
          root,
          `${path.join(dir.path, name)} is not a regular file with one name; nothing was appended`,
        );
      fs.writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
    } finally {
      fs.closeSync(fd);
    }
  });
}

/** Renames an entry to another name in the same folder (no link followed). */
export function renameIn(root: string, file: string, newName: string): void {
  withDir(root, file, "refuse", undefined, (dir, name) => fs.renameSync(dir.entry(name), dir.entry(newName)));
}

/**
 * Removes a file or link inside root (never what a link points to); absent is fine. With `expect`, only
 * while it holds exactly those bytes (checked just before, in the same synchronous step; else locked).
 */
export function removeFileIn(root: string, file: string, options: { expect?: Buffer } = {}): void {
  try {
    withDir(root, file, "refuse", undefined, (dir, name) => {
      if (options.expect !== undefined) expectHeld(root, dir, name, options.expect);
      fs.rmSync(dir.entry(name), { force: true });
    });
  } catch (err) {
    if (errCode(err) !== "ENOENT") throw err;
  }
}

function emptyDir(dir: SafeDir): void {
  for (const entry of dir.list()) {
    if (entry.isDirectory()) {
      const child = dir.child(entry.name);
      try {
        emptyDir(child);
      } finally {
        child.close();
      }
      fs.rmdirSync(dir.entry(entry.name));
    } else fs.rmSync(dir.entry(entry.name), { force: true });
  }
}

/** Removes a folder and everything in it, each entry through its open parent: a swapped link is unlinked, never followed. */
export function removeTreeIn(root: string, dir: string): void {
  try {
    withDir(root, dir, "refuse", undefined, (parent, name) => {
      const st = parent.lstat(name);
      if (!st) return;
      if (!st.isDirectory()) return fs.rmSync(parent.entry(name), { force: true });
      const opened = parent.child(name);
      try {
        emptyDir(opened);
      } finally {
        opened.close();
      }
      fs.rmdirSync(parent.entry(name));
    });
  } catch (err) {
    if (errCode(err) !== "ENOENT") throw err;
  }
}

/** Names in a folder inside root reached without links; [] when it does not exist. */
export function listDirIn(root: string, dir: string): fs.Dirent[] {
  let opened: SafeDir;
  try {
    opened = openDirIn(root, dir);
  } catch (err) {
    if (errCode(err) === "ENOENT") return [];
    throw err;
  }
  try {
    return opened.list();
  } finally {
    opened.close();
  }
}

/** What the adapters need of the allowlist: the allowed root holding a canonical path. */
export interface RootFinder {
  rootOf(canonical: string): string | undefined;
}

function rootFor(roots: RootFinder, file: string): string {
  const root = roots.rootOf(file);
  if (!root)
    throw new ToolError("path_validation", `${file} is outside the allowed paths; it was not touched`);
  return root;
}

/** A source file's text, read from its allowed root without following a swapped link. */
export function readSourceText(roots: RootFinder, file: string): string {
  return readTextIn(rootFor(roots, file), file);
}

/** Many source files' texts, in order, each folder opened once per root (BatchReader). */
export function readSourceTexts(roots: RootFinder, files: readonly string[]): string[] {
  const readers = new Map<string, BatchReader>();
  try {
    return files.map((file) => {
      const root = rootFor(roots, file);
      let reader = readers.get(root);
      if (!reader) readers.set(root, (reader = new BatchReader(root)));
      return reader.readText(file);
    });
  } finally {
    for (const reader of readers.values()) reader.close();
  }
}

/**
 * A fixer's or formatter's write of one file: atomic, mode kept, refused (error_type locked) when the file no
 * longer holds `before`, the text the new content was computed from.
 */
export function rewriteSource(
  roots: RootFinder,
  file: string,
  before: string,
  after: string,
  /** A new mode (a script made executable); the file keeps its own otherwise. */
  mode?: number,
): void {
  writeFileIn(rootFor(roots, file), file, after, { expect: before, ...(mode !== undefined && { mode }) });
}
