/**
 * Reads inside one canonical root without following a swapped link (safe-dir.ts says how): one file, many
 * files under one root (BatchReader), an lstat, a folder's names.
 */
import type fs from "node:fs";
import path from "node:path";
import { isWithin } from "./allowlist.js";
import {
  errCode,
  LinkFound,
  openDirIn,
  openRoot,
  readOpen,
  refuse,
  withDir,
  type LinkPolicy,
  type SafeDir,
  type SafeRead,
} from "./safe-dir.js";

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
