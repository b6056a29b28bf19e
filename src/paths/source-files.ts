/**
 * The adapters' reads and writes of source files: each file's allowed root is found through the allowlist,
 * then the file is read or rewritten there by safe-read.ts / safe-write.ts (no swapped link followed).
 */
import { ToolError } from "../errors.js";
import { readTextIn, BatchReader } from "./safe-read.js";
import { writeFileIn } from "./safe-write.js";

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
