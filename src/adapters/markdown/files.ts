/**
 * Walks a directory for Markdown files, lazily (an async generator, one directory listing in memory
 * at a time), skipping `.gitignore`d paths, the caller's gitignore-style `exclude` patterns, `.git`
 * and `node_modules`. Symbolic links are not followed, so the walk never leaves the tree.
 */
import fs from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { lstat, readdir, readFile, realpath } from "./fs-calls.js";
import { isWithin } from "../../paths/allowlist.js";

export const MARKDOWN_EXTENSIONS: ReadonlySet<string> = new Set([
  ".md",
  ".markdown",
  ".mdown",
  ".mkd",
  ".mkdn",
]);

/** Directories never worth walking for a project's own documentation. */
const ALWAYS_SKIPPED = new Set([".git", "node_modules"]);

export function isMarkdownFile(file: string): boolean {
  return MARKDOWN_EXTENSIONS.has(path.extname(file).toLowerCase());
}

interface IgnoreLayer {
  /** Directory the rules are relative to. */
  dir: string;
  rules: Ignore;
}

/** A .gitignore that is a link to a file outside `root` counts as absent: it is not read. */
async function readGitignore(dir: string, root: string): Promise<IgnoreLayer | undefined> {
  try {
    const file = path.join(dir, ".gitignore");
    if ((await lstat(file)).isSymbolicLink() && !isWithin(root, await realpath(file))) return undefined;
    const text = await readFile(file, "utf8");
    return { dir, rules: ignore().add(text) };
  } catch {
    return undefined;
  }
}

function ignoredBy(layers: readonly IgnoreLayer[], abs: string, isDir: boolean): boolean {
  for (const layer of layers) {
    const rel = path.relative(layer.dir, abs);
    if (!rel || rel.startsWith("..") || path.isAbsolute(rel)) continue;
    const posix = rel.split(path.sep).join("/");
    if (layer.rules.ignores(isDir ? `${posix}/` : posix)) return true;
  }
  return false;
}

/**
 * Markdown files under `dir`, depth first, in name order. `exclude` patterns are gitignore-style and
 * relative to `dir`; `.gitignore` files apply from `root` (the allowed root) down.
 */
export async function* walkMarkdownFiles(
  dir: string,
  exclude: readonly string[],
  root: string,
): AsyncGenerator<string> {
  const layers: IgnoreLayer[] = [];
  if (exclude.length) layers.push({ dir, rules: ignore().add([...exclude]) });
  // .gitignore files above the starting directory (up to the root) still apply to it.
  const ancestors: string[] = [];
  for (let d = path.dirname(dir); isWithin(root, d) && d !== dir; d = path.dirname(d)) {
    ancestors.unshift(d);
    if (d === path.dirname(d)) break;
  }
  for (const d of ancestors) {
    const layer = await readGitignore(d, root);
    if (layer) layers.push(layer);
  }
  yield* walk(dir, layers, root);
}

async function* walk(dir: string, inherited: IgnoreLayer[], root: string): AsyncGenerator<string> {
  let entries: fs.Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // an unreadable directory has nothing we can check
  }
  // The listing says whether the folder has a .gitignore: a look for one in every folder walked (1,200 of
  // them in rust-lang/book's tree) would find none in almost all.
  const own = entries.some((e) => e.name === ".gitignore") ? await readGitignore(dir, root) : undefined;
  const layers = own ? [...inherited, own] : inherited;
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (ALWAYS_SKIPPED.has(entry.name) || ignoredBy(layers, abs, true)) continue;
      yield* walk(abs, layers, root);
    } else if (entry.isFile() && isMarkdownFile(entry.name) && !ignoredBy(layers, abs, false)) {
      yield abs;
    }
  }
}
