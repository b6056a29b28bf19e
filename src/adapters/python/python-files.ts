/**
 * Discovers the Python files ruff would check under a directory: *.py and *.pyi, skipping ruff's default
 * excludes, the project's `exclude`/`extend-exclude` globs, any virtualenv (a folder holding `pyvenv.cfg`,
 * which the server also excludes for the CLI) and, unless turned off, .gitignore'd paths.
 * A file named explicitly is always included, as with the CLI.
 */
import fs from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { loadRuffSettings, ruffConfigIn, type RuffSettings } from "./ruff-settings.js";
import { excludedBy } from "./ruff-globs.js";
import { isWithin } from "../../paths/allowlist.js";
import { isWithinPath, relativeTo } from "../../paths/fast-relative.js";
import { sharedTree, type DirEntry } from "../../paths/tree-scan.js";

export const RUFF_DEFAULT_EXCLUDES = [
  ".bzr",
  ".direnv",
  ".eggs",
  ".git",
  ".git-rewrite",
  ".hg",
  ".ipynb_checkpoints",
  ".mypy_cache",
  ".nox",
  ".pants.d",
  ".pyenv",
  ".pytest_cache",
  ".pytype",
  ".ruff_cache",
  ".svn",
  ".tox",
  ".venv",
  ".vscode",
  "__pypackages__",
  "_build",
  "buck-out",
  "dist",
  "node_modules",
  "site-packages",
  "venv",
];

const PYTHON_FILE = /\.pyi?$/;

/** A virtualenv, whatever its name: Python writes `pyvenv.cfg` at the top of every one. */
export function isVirtualenv(dir: string): boolean {
  // From the shared scan's listing of the folder (one stat while it is unchanged), else the disk.
  const entries = sharedTree.entries(dir);
  return entries ? entries.some((e) => e.name === "pyvenv.cfg") : fs.existsSync(path.join(dir, "pyvenv.cfg"));
}

export interface GitignoreLayer {
  dir: string;
  rules: Ignore;
}

/** A .gitignore as last read: its identity, and the pass of the tree scan in which that was last checked. */
interface KnownGitignore {
  pass: number;
  file: string;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  layer: GitignoreLayer;
}

/**
 * The .gitignore files read, by their folder: a walk reuses the parsed rules (and the answers the `ignore` package
 * keeps for the paths it was asked about) while the file is the same, checked once per pass of the tree
 * scan. Each walk of each call parsed them anew, and asked again about every path (issue 42: pylint's
 * gitignore tests were a quarter of a warm lint).
 */
const knownGitignores = new Map<string, KnownGitignore>();
const MAX_KNOWN_GITIGNORES = 10_000;
/** A file changed this recently may change again within its timestamp's grain: it is read again next time. */
const RACY_NS = 50_000_000n;

/** A .gitignore that is a link to a file outside `root` counts as absent: it is not read. */
export function readGitignore(dir: string, root: string): GitignoreLayer | undefined {
  const listed = sharedTree.entries(dir);
  if (listed && !listed.some((e) => e.name === ".gitignore")) return undefined;
  const known = knownGitignores.get(dir);
  const file = known?.file ?? path.join(dir, ".gitignore");
  // A remembered walk that read it is walked again when it changes.
  if (listed) sharedTree.dependsOnFile(file);
  else sharedTree.dependsOnUntracked();
  if (known?.pass === sharedTree.currentPass) return known.layer;
  const st = fs.lstatSync(file, { bigint: true, throwIfNoEntry: false });
  if (!st) {
    knownGitignores.delete(dir);
    return undefined;
  }
  if (st.isSymbolicLink()) {
    sharedTree.dependsOnUntracked();
    if (!fs.existsSync(file) || !isWithin(root, fs.realpathSync.native(file))) return undefined;
    return { dir, rules: ignore().add(fs.readFileSync(file, "utf8")) };
  }
  if (!st.isFile()) return undefined;
  const same = (k: KnownGitignore) =>
    k.ino === st.ino && k.size === st.size && k.mtimeNs === st.mtimeNs && k.ctimeNs === st.ctimeNs;
  if (known && same(known)) {
    known.pass = sharedTree.currentPass;
    return known.layer;
  }
  const layer = { dir, rules: ignore().add(fs.readFileSync(file, "utf8")) };
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  if (nowNs - st.mtimeNs > RACY_NS && nowNs - st.ctimeNs > RACY_NS) {
    if (knownGitignores.size >= MAX_KNOWN_GITIGNORES) knownGitignores.clear();
    knownGitignores.set(dir, {
      pass: sharedTree.currentPass,
      file,
      ino: st.ino,
      size: st.size,
      mtimeNs: st.mtimeNs,
      ctimeNs: st.ctimeNs,
      layer,
    });
  } else knownGitignores.delete(dir);
  return layer;
}

export function gitignored(layers: readonly GitignoreLayer[], abs: string, isDir: boolean): boolean {
  for (const layer of layers) {
    // The sliced forms: path.relative resolved both paths for every path of every walk.
    if (abs === layer.dir || !isWithinPath(layer.dir, abs)) continue;
    const rel = relativeTo(layer.dir, abs);
    if (layer.rules.ignores(isDir ? `${rel}/` : rel)) return true;
  }
  return false;
}

/** The exclude globs of a settings object: its `exclude` (else ruff's defaults) and `extend-exclude`. */
function excludeGlobsOf(settings: RuffSettings): string[] {
  return [...(settings.exclude.length ? settings.exclude : RUFF_DEFAULT_EXCLUDES), ...settings.extendExclude];
}

/** A matcher for exclude globs: bare names by a set lookup on the file's name, the others by excludedBy. */
function excludeMatcher(globs: readonly string[]): (abs: string) => boolean {
  const names = new Set(globs.filter((p) => !/[*?[\]{}/\\]/.test(p)));
  const rest = globs.filter((p) => !names.has(p));
  return (abs) => names.has(path.basename(abs)) || excludedBy(rest, abs);
}

/** Whether a `.git` entry exists at or above `target` (only its existence is checked, nothing is read). */
export function insideGitRepository(target: string): boolean {
  for (let d = target; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, ".git"))) return true;
    if (d === path.dirname(d)) return false;
  }
}

/**
 * Python files under `target` (sorted), as the ruff CLI would pick them, symbolic links left out. The links
 * the CLI would follow (Python file names, not excluded) are added to `links` when given.
 */
export function discoverPythonFiles(
  target: string,
  settings: RuffSettings,
  root: string,
  links?: string[],
): string[] {
  if (fs.statSync(target).isFile()) return [target];
  // Like the CLI, .gitignore only counts inside a git repository.
  const useGitignore = settings.respectGitignore && insideGitRepository(target);
  const patterns = excludeGlobsOf(settings);
  const hierarchical = settings.hierarchical === true;
  // A long-lived server's watcher vouches for the walk while nothing it read has changed (tree-scan.ts):
  // the nested configs it read are among those.
  const key = JSON.stringify(["python-files", target, root, patterns, useGitignore, hierarchical]);
  const found = sharedTree.remember(key, () =>
    walkPythonFiles(target, root, patterns, useGitignore, hierarchical),
  );
  links?.push(...found.links);
  return [...found.files];
}

/** The walk of discoverPythonFiles: Python files (sorted) and Python-named links under the folder `target`. */
function walkPythonFiles(
  target: string,
  root: string,
  patterns: readonly string[],
  useGitignore: boolean,
  hierarchical: boolean,
): { files: string[]; links: string[] } {
  const links: string[] = [];
  // .gitignore files from the allowed root down to the target apply as well as those found while walking;
  // none above the root is read.
  const inherited: GitignoreLayer[] = [];
  if (useGitignore) {
    const chain: string[] = [];
    for (let d = path.dirname(target); isWithin(root, d); d = path.dirname(d)) {
      chain.unshift(d);
      if (d === path.dirname(d)) break;
    }
    for (const d of chain) {
      const layer = readGitignore(d, root);
      if (layer) inherited.push(layer);
    }
  }
  const files: string[] = [];
  const walk = (dir: string, layers: GitignoreLayer[], parentExcluded: (abs: string) => boolean) => {
    const own = useGitignore ? readGitignore(dir, root) : undefined;
    const active = own ? [...layers, own] : layers;
    // The shared scan: a folder unchanged since it was last listed is not listed again.
    const listed = sharedTree.children(dir);
    if (!listed) throw Object.assign(new Error(`cannot list ${dir}`), { code: "ENOENT" });
    // As ruff walks: a folder with a config of its own has its entries excluded by that config's patterns.
    const nested = hierarchical && dir !== target ? nestedSettings(dir, listed.entries, root) : undefined;
    const excluded = nested ? excludeMatcher(excludeGlobsOf(nested)) : parentExcluded;
    for (let i = 0; i < listed.entries.length; i++) {
      const entry = listed.entries[i] as DirEntry;
      const abs = listed.paths[i] as string;
      const isDir = entry.kind === "dir";
      if (excluded(abs) || gitignored(active, abs, isDir)) continue;
      if (entry.kind === "link") {
        // never leave the tree through a link
        if (PYTHON_FILE.test(entry.name)) links.push(abs);
        continue;
      }
      if (isDir) {
        if (!isVirtualenv(abs)) walk(abs, active, excluded);
      } else if (entry.kind === "file" && PYTHON_FILE.test(entry.name)) files.push(abs);
    }
  };
  walk(target, inherited, excludeMatcher(patterns));
  return { files: files.sort(), links };
}

const CONFIG_NAMES = new Set([".ruff.toml", "ruff.toml", "pyproject.toml"]);

/** The settings of a config in the folder `dir` itself, if it has one (looked for only when its listing names one). */
function nestedSettings(dir: string, entries: readonly DirEntry[], root: string): RuffSettings | undefined {
  if (!entries.some((e) => CONFIG_NAMES.has(e.name))) return undefined;
  return ruffConfigIn(dir, root) ? loadRuffSettings(dir, root) : undefined;
}
