/**
 * File-system facts about local link targets, cached for one run: whether a path exists (and where it
 * really is, symlinks resolved), and the anchors of a target file. Nothing outside the allowed roots is
 * ever read: containment is checked on the lexical path before any file-system call, and again on the
 * canonical path before a target's content is read.
 */
import path from "node:path";
import type { Allowlist } from "../../paths/allowlist.js";
import type { AnchorIndex } from "./anchors.js";
import type { MarkdownAnalyses } from "./analysis-memo.js";
import { countLines } from "./extract.js";
import { isMarkdownFile } from "./files.js";
import { lstat, readdir, readFile, realpath, stat } from "./fs-calls.js";

export type TargetState =
  { exists: true; real: string; isDirectory: boolean } | { exists: false; reason: "outside" | "missing" };

/** Largest file read for links or anchors; bigger ones are reported rather than loaded. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Reads a UTF-8 file; undefined when it is larger than MAX_FILE_BYTES (then it is not read). Throws on I/O errors. */
export async function readTextCapped(file: string): Promise<string | undefined> {
  if ((await stat(file)).size > MAX_FILE_BYTES) return undefined;
  return readFile(file, "utf8");
}

export class LocalTargets {
  private readonly states = new Map<string, Promise<TargetState>>();
  private readonly anchors = new Map<string, Promise<AnchorIndex | undefined>>();
  private readonly directories = new Map<string, Promise<string | undefined>>();
  private readonly listings = new Map<string, Promise<string[]>>();

  constructor(
    private readonly allowlist: Pick<Allowlist, "rootOf">,
    private readonly analyses: MarkdownAnalyses,
  ) {}

  /**
   * Names in the directory of a missing target (for suggestions); empty when the directory is missing
   * or outside the allowed roots. Listed once per directory per run.
   */
  siblings(absolute: string): Promise<string[]> {
    const dir = path.dirname(absolute);
    let l = this.listings.get(dir);
    if (!l) {
      l = this.list(dir);
      this.listings.set(dir, l);
    }
    return l;
  }

  private async list(dir: string): Promise<string[]> {
    if (!this.allowlist.rootOf(dir)) return [];
    const real = await this.realDirectory(dir);
    if (real === undefined || !this.allowlist.rootOf(real)) return [];
    return readdir(real).catch(() => []);
  }

  /** Whether `absolute` exists inside the allowed roots. */
  state(absolute: string): Promise<TargetState> {
    let s = this.states.get(absolute);
    if (!s) {
      s = this.lookup(absolute);
      this.states.set(absolute, s);
    }
    return s;
  }

  /**
   * Canonical directories are cached, so a target usually costs one lstat: only a symlink as the last
   * component needs its own realpath.
   */
  private async lookup(absolute: string): Promise<TargetState> {
    if (!this.allowlist.rootOf(absolute)) return { exists: false, reason: "outside" };
    const dir = await this.realDirectory(path.dirname(absolute));
    if (dir === undefined) return { exists: false, reason: "missing" };
    let real = path.join(dir, path.basename(absolute));
    if (!this.allowlist.rootOf(real)) return { exists: false, reason: "outside" };
    try {
      let st = await lstat(real);
      if (st.isSymbolicLink()) {
        real = await realpath(real);
        if (!this.allowlist.rootOf(real)) return { exists: false, reason: "outside" };
        st = await stat(real);
      }
      return { exists: true, real, isDirectory: st.isDirectory() };
    } catch {
      return { exists: false, reason: "missing" };
    }
  }

  private realDirectory(dir: string): Promise<string | undefined> {
    let d = this.directories.get(dir);
    if (!d) {
      d = realpath(dir).catch(() => undefined);
      this.directories.set(dir, d);
    }
    return d;
  }

  /** True when the anchors of `real` are known or being read. */
  known(real: string): boolean {
    return this.anchors.has(real);
  }

  /** Records the anchors of a file the walk has parsed anyway, so it is not parsed again. */
  remember(real: string, index: AnchorIndex): void {
    if (!this.anchors.has(real)) this.anchors.set(real, Promise.resolve(index));
  }

  /**
   * Anchors of an existing target inside the allowed roots (`real` from `state`): Markdown is parsed,
   * other files only yield their line count. Undefined when the file cannot be read.
   */
  anchorsOf(real: string): Promise<AnchorIndex | undefined> {
    let a = this.anchors.get(real);
    if (!a) {
      a = this.loadAnchors(real);
      this.anchors.set(real, a);
    }
    return a;
  }

  private async loadAnchors(real: string): Promise<AnchorIndex | undefined> {
    if (!this.allowlist.rootOf(real)) return undefined;
    try {
      const text = await readTextCapped(real);
      if (text === undefined) return undefined;
      if (isMarkdownFile(real)) return this.analyses.analyze(real, text).anchorIndex;
      return { anchors: new Set(), lineCount: countLines(text) };
    } catch {
      return undefined;
    }
  }
}
