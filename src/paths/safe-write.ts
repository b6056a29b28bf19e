/**
 * Writes inside one canonical root without following a swapped link (safe-dir.ts says how). A file's write
 * goes to an exclusively created temp file with an unpredictable name beside the target and is renamed into
 * place (the mode kept), so a kill leaves the old bytes or the new ones, never a partial file. Also: create
 * only when absent, append, rename, remove a file or a whole tree.
 */
import { treeMayHaveChanged } from "./tree-scan.js";
import { asyncScope } from "../async-scope.js";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import {
  errCode,
  LinkFound,
  openFileNoFollow,
  readOpen,
  refuse,
  withDir,
  type LinkPolicy,
  type SafeDir,
} from "./safe-dir.js";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_APPEND } = fs.constants;

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
export const writeObserver = asyncScope<WriteObserver>();

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
  treeMayHaveChanged();
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
  treeMayHaveChanged();
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
  treeMayHaveChanged();
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
  treeMayHaveChanged();
  withDir(root, file, "refuse", undefined, (dir, name) => fs.renameSync(dir.entry(name), dir.entry(newName)));
}

/**
 * Removes a file or link inside root (never what a link points to); absent is fine. With `expect`, only
 * while it holds exactly those bytes (checked just before, in the same synchronous step; else locked).
 */
export function removeFileIn(root: string, file: string, options: { expect?: Buffer } = {}): void {
  treeMayHaveChanged();
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
  treeMayHaveChanged();
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
