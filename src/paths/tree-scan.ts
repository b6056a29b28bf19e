/**
 * One scan of a project tree shared by every tool of a server (and every check of a `check` run): each
 * folder's entries are listed once and remembered with the folder's stat, so a later walk costs one
 * `stat` per folder, not a `readdir`. A folder changed less than RACY_NS before it was listed is listed
 * again next time (the clock of the file system is coarse).
 *
 * Within one pass a folder is stat'ed once: the several walks of a call (the files a tool checks, the
 * project layout, the folders it excludes, the links leaving the root) and every `entries` look-up in
 * them share its answer. A new pass starts where the tree may have changed: at the start of every tool
 * call (engine.ts), after every process the server ran (runner.ts: a tool may write) and after every
 * write of the server's own (safe-write.ts). Measured on pylint (2,419 files, ~870 folders): ~10 stats a
 * folder a warm lint before, one after.
 */
import fs from "node:fs";
import path from "node:path";

const RACY_NS = 50_000_000n;
const MAX_DIRS = 100_000;

export interface DirEntry {
  name: string;
  kind: "file" | "dir" | "link" | "other";
}

interface Listing {
  /** The pass in which the folder's stat last matched (see startPass). */
  pass: number;
  ino: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  entries: DirEntry[];
  /** Each entry's absolute path, joined once per listing (a walk of a big tree would join them all again). */
  paths: string[];
}

export interface TreeWalk {
  /** Regular files (absolute), in walk order (entries sorted by name). */
  files: string[];
  /** Symbolic links met (absolute); never followed. */
  links: string[];
  /** Folders walked, the target first. */
  dirs: string[];
}

export class TreeScanner {
  private readonly listings = new Map<string, Listing>();
  private pass = 0;
  /** readdir calls since start (tests and benchmarks read it). */
  listed = 0;
  /** Folder stats since start (tests and benchmarks read it). */
  stats = 0;

  /** The current pass: what was checked in it holds until the next (readers keyed by it, such as .gitignore's). */
  get currentPass(): number {
    return this.pass;
  }

  /** The tree may have changed since the folders were last stat'ed: each is stat'ed again when next met. */
  startPass(): void {
    this.pass++;
  }

  /** The entries of `dir`, sorted by name; undefined when it cannot be read. */
  entries(dir: string): DirEntry[] | undefined {
    return this.listing(dir)?.entries;
  }

  /** The entries of `dir` with each one's absolute path (joined once per listing); undefined when unreadable. */
  children(dir: string): { entries: readonly DirEntry[]; paths: readonly string[] } | undefined {
    return this.listing(dir);
  }

  private listing(dir: string): Pick<Listing, "entries" | "paths"> | undefined {
    const known = this.listings.get(dir);
    if (known?.pass === this.pass) return known;
    let st: fs.BigIntStats;
    this.stats++;
    try {
      st = fs.lstatSync(dir, { bigint: true });
    } catch {
      this.listings.delete(dir);
      return undefined;
    }
    if (!st.isDirectory()) return undefined;
    if (known && known.ino === st.ino && known.mtimeNs === st.mtimeNs && known.ctimeNs === st.ctimeNs) {
      known.pass = this.pass;
      return known;
    }
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    this.listed++;
    const entries = dirents
      .map((d): DirEntry => ({
        name: d.name,
        kind: d.isSymbolicLink() ? "link" : d.isDirectory() ? "dir" : d.isFile() ? "file" : "other",
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const paths = entries.map((e) => path.join(dir, e.name));
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    if (nowNs - st.mtimeNs > RACY_NS && nowNs - st.ctimeNs > RACY_NS) {
      if (this.listings.size >= MAX_DIRS) this.listings.delete(this.listings.keys().next().value as string);
      this.listings.set(dir, {
        pass: this.pass,
        ino: st.ino,
        mtimeNs: st.mtimeNs,
        ctimeNs: st.ctimeNs,
        entries,
        paths,
      });
    } else this.listings.delete(dir);
    return { entries, paths };
  }

  /**
   * Walks `target` (a folder), skipping the folders `skip` says to (given the folder's name and path),
   * never following links.
   */
  walk(target: string, skip: (name: string, abs: string) => boolean): TreeWalk {
    const out: TreeWalk = { files: [], links: [], dirs: [] };
    const visit = (dir: string) => {
      out.dirs.push(dir);
      const listed = this.listing(dir);
      if (!listed) return;
      const { entries, paths } = listed;
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i] as DirEntry;
        const abs = paths[i] as string;
        if (e.kind === "file") out.files.push(abs);
        else if (e.kind === "link") out.links.push(abs);
        else if (e.kind === "dir" && !skip(e.name, abs)) visit(abs);
      }
    };
    visit(target);
    return out;
  }
}

/** Folders no per-file tool walks into by default: version control and dependency stores. */
export const ALWAYS_SKIPPED = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  ".mcp-cache",
  // Tools' own caches (ruff writes a .gitignore into its own): never a file any tool checks.
  ".ruff_cache",
  ".mypy_cache",
  ".pytest_cache",
  "__pycache__",
]);

/**
 * The one scanner of the process: the result cache's walks, and the project-language detection every
 * format_check, lint and check call makes, list each folder once between its changes.
 */
export const sharedTree = new TreeScanner();

/** Something may have changed the tree (a call starts, a process ended, the server wrote): a new pass. */
export function treeMayHaveChanged(): void {
  sharedTree.startPass();
}
