/**
 * The core of the server's race-safe file access inside one canonical root. Every path is reached from the
 * root down one component at a time with O_NOFOLLOW, each step relative to the directory already open (on
 * Linux through /proc/self/fd/N, which resolves inside that very directory, like openat), and the root's
 * descriptor is checked to be the root itself. So a symlink swapped in after a path was checked is never
 * followed: the call refuses (path_validation) instead.
 *
 * Elsewhere than Linux the same checks run on the path itself (each component opened with O_NOFOLLOW and its
 * identity compared with the path's) and a window between check and use remains: see docs/path-safety.md.
 * The reads and writes built on this are in safe-read.ts and safe-write.ts; safe-fs.ts gathers them.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import { isWithin } from "./allowlist.js";

const { O_RDONLY, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = fs.constants;

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

export class LinkFound extends Error {}

export function refuse(root: string, message: string): never {
  throw new ToolError("path_validation", message, { allowed_paths: [root] });
}

export function errCode(err: unknown): string | undefined {
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

export function openRoot(root: string): SafeDir {
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
export function withDir<T>(
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

export function openFileNoFollow(at: string, flags: number, mode?: number): number {
  try {
    return fs.openSync(at, flags | O_NOFOLLOW, mode);
  } catch (err) {
    if (errCode(err) === "ELOOP") throw new LinkFound(at);
    throw err;
  }
}

export function readOpen(root: string, dir: SafeDir, name: string): SafeRead | undefined {
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
