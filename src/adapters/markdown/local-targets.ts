/**
 * File-system facts about local link targets, cached for one run: whether a path exists (and where it
 * really is, symlinks resolved), and the anchors of a target file. Nothing outside the allowed roots is
 * ever read: containment is checked on the lexical path before any file-system call, and again on the
 * canonical path before a target's content is read.
 */
import fs from "node:fs";
import type { Allowlist } from "../../paths/allowlist.js";
import type { AnchorIndex } from "./anchors.js";
import { analyzeMarkdown, countLines } from "./extract.js";
import { isMarkdownFile } from "./files.js";

export type TargetState =
  { exists: true; real: string; isDirectory: boolean } | { exists: false; reason: "outside" | "missing" };

/** Largest file read for links or anchors; bigger ones are reported rather than loaded. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Reads a UTF-8 file through one handle; undefined when it is larger than MAX_FILE_BYTES. Throws on I/O errors. */
export async function readTextCapped(file: string): Promise<string | undefined> {
  const handle = await fs.promises.open(file, "r");
  try {
    if ((await handle.stat()).size > MAX_FILE_BYTES) return undefined;
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

export class LocalTargets {
  private readonly states = new Map<string, Promise<TargetState>>();
  private readonly anchors = new Map<string, Promise<AnchorIndex | undefined>>();

  constructor(private readonly allowlist: Allowlist) {}

  /** Whether `absolute` exists inside the allowed roots. */
  state(absolute: string): Promise<TargetState> {
    let s = this.states.get(absolute);
    if (!s) {
      s = this.lookup(absolute);
      this.states.set(absolute, s);
    }
    return s;
  }

  private async lookup(absolute: string): Promise<TargetState> {
    if (!this.allowlist.rootOf(absolute)) return { exists: false, reason: "outside" };
    let real: string;
    try {
      real = await fs.promises.realpath(absolute);
    } catch {
      return { exists: false, reason: "missing" };
    }
    if (!this.allowlist.rootOf(real)) return { exists: false, reason: "outside" };
    try {
      const st = await fs.promises.stat(real);
      return { exists: true, real, isDirectory: st.isDirectory() };
    } catch {
      return { exists: false, reason: "missing" };
    }
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
      if (isMarkdownFile(real)) return analyzeMarkdown(text).anchorIndex;
      return { anchors: new Set(), lineCount: countLines(text) };
    } catch {
      return undefined;
    }
  }
}
