/**
 * The projects a path holds (DESIGN.md principle 10: a path that holds several projects is checked as
 * several projects, each at its own root). Decided here, once, for `check` and every MCP tool that picks
 * its tools by language (tool-choice.ts): each language's tools run at each of its project roots below the
 * path, where they find the project's own configuration, never once at a folder that is no project of
 * theirs (a monorepo root with `py/`, `go/`, `rs/`, `js/` and no manifest of its own).
 *
 * A project of a language is a folder holding its manifest: `pyproject.toml`, `setup.cfg`, `setup.py`,
 * `Pipfile`; `package.json` or `tsconfig.json`; `go.mod`; `Cargo.toml`; `Gemfile`, `.rubocop.yml` or a `.gemspec`. How far one reaches
 * is the language's own rule: a Python, JavaScript or Ruby project covers the folders below it (its tools
 * read nested configs themselves; an npm workspace's root lints and formats its packages, as its own
 * `eslint .` and `prettier --check .` do); every Go module is its own (`./...` stops at a nested go.mod, and a
 * go.work root is no module); a Cargo workspace covers the crates below it that have no workspace of
 * their own. Folders no tool walks are not searched: dependencies and builds (`node_modules`, `target`...),
 * hidden folders, virtualenvs (by their `pyvenv.cfg`), test data and vendored code (`fixtures`,
 * `testdata`, `vendor`, `third_party`), and, in a git repository, .gitignore'd folders.
 *
 * Files of a language outside its projects below the path (a monorepo root's `tools/gen.py` beside
 * `py/pyproject.toml`) are checked where they are: each such folder, or file, is a unit of its own. Go and
 * Rust files outside any module or crate cannot be checked by their tools; the layout's notes say which.
 */
import { asyncScope } from "../async-scope.js";
import fs from "node:fs";
import path from "node:path";
import { sharedTree, type DirEntry } from "../paths/tree-scan.js";
import { isWithin } from "../paths/allowlist.js";
import { readConfigText } from "./project-configs.js";
import {
  gitignored,
  insideGitRepository,
  isVirtualenv,
  readGitignore,
  type GitignoreLayer,
} from "./python/python-files.js";
import {
  ALL_LANGUAGES,
  isFileOf,
  languageOfFile,
  languageOfPath,
  projectLanguages,
  SKIPPED_DIRS,
  type ProjectLanguage,
} from "./project-languages.js";

/** A language family whose tools run together: JavaScript and TypeScript are one. */
export type Ecosystem = "python" | "js" | "go" | "rust" | "ruby";

export const ECOSYSTEM_OF: Record<ProjectLanguage, Ecosystem> = {
  python: "python",
  typescript: "js",
  javascript: "js",
  go: "go",
  rust: "rust",
  ruby: "ruby",
};

const LANGUAGES_OF: Record<Ecosystem, ProjectLanguage[]> = {
  python: ["python"],
  js: ["typescript", "javascript"],
  go: ["go"],
  rust: ["rust"],
  ruby: ["ruby"],
};

export interface ProjectUnit {
  /** Where the language's tools run: a project's root, the path itself, or loose files' folder (or file). */
  dir: string;
  ecosystem: Ecosystem;
  /** The unit's languages with files, weightiest first (TypeScript and JavaScript for js). */
  languages: ProjectLanguage[];
  /**
   * project: a project found below the path; target: the path itself (a project, inside one, or holding
   * no project of the language at all); loose: files of the language outside its projects below the path.
   */
  kind: "project" | "target" | "loose";
  /**
   * The projects of the ecosystem below `dir` that this unit covers (its tools' walk takes them: an npm
   * workspace's packages, a Python project's nested ones), each under its nearest unit. A tool that does not
   * read a nested project's own configuration from the root (tsc, ty, mypy, pyright) runs at them too.
   */
  covered?: string[];
}

export interface ProjectLayout {
  /** In order: the path's languages by weight, then each language's units by folder. */
  units: ProjectUnit[];
  /** What is below the path but is no unit, and why (Go or Rust files outside any module or crate). */
  notes: string[];
}

/** Test data and vendored code: projects in them are not the path's own. */
const NOT_PROJECTS = new Set(["fixtures", "__fixtures__", "testdata", "test_data", "vendor", "third_party"]);

/** At most this many folders are walked; at most this many loose files per language become units. */
const MAX_DIRS = 20_000;
const MAX_LOOSE_FILES = 50;

interface WalkedDir {
  names: Set<string>;
  /** Folders below it that are walked (not skipped). */
  children: string[];
  /** Languages of the files directly in it. */
  languages: Set<ProjectLanguage>;
}

/** The folders under `target` that a project search looks into, with what each holds. */
function walkTree(target: string, root: string): ReadonlyMap<string, WalkedDir> {
  const useGitignore = insideGitRepository(target);
  // A long-lived server's watcher vouches for the walk while nothing it read has changed (tree-scan.ts).
  const key = JSON.stringify(["project-tree", target, root, useGitignore]);
  return sharedTree.remember(key, () => walkProjectTree(target, root, useGitignore));
}

function walkProjectTree(target: string, root: string, useGitignore: boolean): Map<string, WalkedDir> {
  const out = new Map<string, WalkedDir>();
  const inherited: GitignoreLayer[] = [];
  if (useGitignore)
    for (let d = path.dirname(target); isWithin(root, d); d = path.dirname(d)) {
      const layer = readGitignore(d, root);
      if (layer) inherited.unshift(layer);
      if (d === path.dirname(d)) break;
    }
  const queue: { dir: string; layers: GitignoreLayer[] }[] = [{ dir: target, layers: inherited }];
  for (let next = 0; next < queue.length && next < MAX_DIRS; next++) {
    const { dir, layers } = queue[next] as (typeof queue)[number];
    const listed = sharedTree.children(dir);
    if (!listed) continue;
    const own = useGitignore ? readGitignore(dir, root) : undefined;
    const active = own ? [...layers, own] : layers;
    const walked: WalkedDir = { names: new Set(), children: [], languages: new Set() };
    out.set(dir, walked);
    for (let i = 0; i < listed.entries.length; i++) {
      const e = listed.entries[i] as DirEntry;
      const abs = listed.paths[i] as string;
      if (e.kind === "dir") {
        if (SKIPPED_DIRS.has(e.name) || e.name.startsWith(".") || NOT_PROJECTS.has(e.name)) continue;
        if (gitignored(active, abs, true) || isVirtualenv(abs)) continue;
        walked.children.push(abs);
        queue.push({ dir: abs, layers: active });
      } else if (e.kind === "file") {
        walked.names.add(e.name);
        // A folder's languages need one file of each that git does not ignore: a file of a language the
        // folder has already is not tested against the .gitignore files (on pylint, ~2,400 tests a walk).
        const language = languageOfFile(e.name);
        if (!language || walked.languages.has(language)) continue;
        if (useGitignore && gitignored(active, abs, false)) continue;
        walked.languages.add(language);
      }
    }
  }
  return out;
}

const hasWorkspaceSection = (dir: string) =>
  /^\s*\[workspace\]/m.test(readConfigText(path.join(dir, "Cargo.toml")));

/** Whether a folder (by the names of its files) is a project of `ecosystem`. */
function isProjectOf(ecosystem: Ecosystem, names: ReadonlySet<string>): boolean {
  switch (ecosystem) {
    case "python":
      return ["pyproject.toml", "setup.cfg", "setup.py", "Pipfile"].some((n) => names.has(n));
    case "js":
      return names.has("package.json") || names.has("tsconfig.json");
    case "go":
      return names.has("go.mod");
    case "rust":
      return names.has("Cargo.toml");
    case "ruby":
      return (
        names.has("Gemfile") || names.has(".rubocop.yml") || [...names].some((n) => n.endsWith(".gemspec"))
      );
  }
}

/**
 * The folders of a walked tree that are projects of `ecosystem`, found once per tree: a long-lived
 * server's walk is remembered (the same frozen map while nothing in it changed), and a warm check of
 * pylint's ~870 folders tested each of them for each ecosystem on every call (~0.6 ms).
 */
const projectDirsByTree = new WeakMap<ReadonlyMap<string, WalkedDir>, Map<Ecosystem, readonly string[]>>();

function projectDirsOf(tree: ReadonlyMap<string, WalkedDir>, ecosystem: Ecosystem): readonly string[] {
  let byEcosystem = projectDirsByTree.get(tree);
  if (!byEcosystem) projectDirsByTree.set(tree, (byEcosystem = new Map()));
  let dirs = byEcosystem.get(ecosystem);
  if (!dirs) {
    dirs = [...tree.keys()].filter((d) => isProjectOf(ecosystem, (tree.get(d) as WalkedDir).names));
    byEcosystem.set(ecosystem, dirs);
  }
  return dirs;
}

/** Whether the project at `outer` covers the one at `inner` below it (its tools check `inner` too). */
function covers(ecosystem: Ecosystem, outer: string, inner: string): boolean {
  if (ecosystem === "go") return false;
  if (ecosystem === "rust") return hasWorkspaceSection(outer) && !hasWorkspaceSection(inner);
  return true;
}

function namesOf(dir: string): Set<string> {
  return new Set((sharedTree.entries(dir) ?? []).filter((e) => e.kind === "file").map((e) => e.name));
}

/** The nearest project of `ecosystem` at `target` or above it, up to `root`. */
function projectAbove(ecosystem: Ecosystem, target: string, root: string): string | undefined {
  for (let d = target; isWithin(root, d); d = path.dirname(d)) {
    if (isProjectOf(ecosystem, namesOf(d))) return d;
    if (d === path.dirname(d)) break;
  }
  return undefined;
}

function findUp(dir: string, name: string): boolean {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, name))) return true;
    if (path.dirname(d) === d) return false;
  }
}

/** Set while a caller that placed each unit itself (check) runs one unit's tools (ownUnitOnly). */
const ownUnitScope = asyncScope<true>();

/**
 * Runs `fn` as the calls of one unit that its caller placed itself: `check` plans every unit of a path
 * (a crate, or a Go module, with crates or modules of its own below it) and calls each unit's tools at its
 * dir, so a call there is that unit alone, as its tools by hand run it (`cargo clippy` in a crate lints
 * that crate, not a crate below it that check calls on its own). Without this, the outer unit's calls
 * placed the inner units' tools again: each inner crate linted and type-checked twice, its findings
 * reported twice.
 */
export function ownUnitOnly<T>(fn: () => Promise<T>): Promise<T> {
  return ownUnitScope.run(true, fn);
}

/** Whether the running call is one unit's that its caller placed itself (inside ownUnitOnly). */
export function placedByCaller(): boolean {
  return ownUnitScope.getStore() === true;
}

/**
 * The units of `target` (a file or folder inside `root`, the allowed root): per language, where its tools
 * run. A file is one unit of its language. Reads folder listings (through the shared scan) and small
 * manifests only. Inside ownUnitOnly: only the units at `target` itself (all of them when none is there).
 */
export function projectLayout(target: string, root: string = target): ProjectLayout {
  const layout = layoutOf(target, root);
  if (!ownUnitScope.getStore()) return layout;
  const own = layout.units.filter((u) => u.dir === target);
  return own.length ? { units: own, notes: layout.notes } : layout;
}

/**
 * The dirs of the units of `ecosystem` strictly below `target`, whatever the caller's scope (ownUnitOnly):
 * each is checked at its own root, so a tool that walks into them by itself (gofmt) leaves them out.
 */
export function unitsBelow(target: string, root: string, ecosystem: Ecosystem): string[] {
  return layoutOf(target, root)
    .units.filter((u) => u.ecosystem === ecosystem && u.dir !== target && isWithin(target, u.dir))
    .map((u) => u.dir);
}

function layoutOf(target: string, root: string): ProjectLayout {
  const st = fs.statSync(target, { throwIfNoEntry: false });
  if (!st) return { units: [], notes: [] };
  if (!st.isDirectory()) {
    // A named script is its language's by its #! line (script-files.ts).
    const language = languageOfPath(target);
    if (!language) return { units: [], notes: [] };
    return {
      units: [{ dir: target, ecosystem: ECOSYSTEM_OF[language], languages: [language], kind: "target" }],
      notes: [],
    };
  }
  const tree = walkTree(target, root);
  const filesMemo = new Map<string, Set<ProjectLanguage>>();
  /** Languages with files in a walked folder or below it. */
  const languagesUnder = (dir: string): Set<ProjectLanguage> => {
    let found = filesMemo.get(dir);
    if (found) return found;
    found = new Set(tree.get(dir)?.languages);
    for (const child of tree.get(dir)?.children ?? []) for (const l of languagesUnder(child)) found.add(l);
    filesMemo.set(dir, found);
    return found;
  };
  const holds = (dir: string, e: Ecosystem) => LANGUAGES_OF[e].some((l) => languagesUnder(dir).has(l));
  const weighed = projectLanguages(target);
  const order = [...new Set([...weighed, ...ALL_LANGUAGES].map((l) => ECOSYSTEM_OF[l]))];
  const units: ProjectUnit[] = [];
  const notes: string[] = [];
  const languagesAt = (dir: string, e: Ecosystem): ProjectLanguage[] => {
    const own = projectLanguages(dir).filter((l) => ECOSYSTEM_OF[l] === e);
    return own.length ? own : LANGUAGES_OF[e].filter((l) => languagesUnder(dir).has(l));
  };
  for (const e of order) {
    const above = projectAbove(e, target, root);
    const found = projectDirsOf(tree, e).filter((d) => d !== target);
    const coverers = above ? [above, ...found] : found;
    const projects = found.filter(
      (p) => holds(p, e) && !coverers.some((q) => q !== p && isWithin(q, p) && covers(e, q, p)),
    );
    const atTarget = weighed.some((l) => ECOSYSTEM_OF[l] === e);
    if (above || projects.length === 0) {
      if (atTarget && (e !== "rust" || findUp(target, "Cargo.toml")))
        units.push({ dir: target, ecosystem: e, languages: languagesAt(target, e), kind: "target" });
      else if (atTarget)
        notes.push(`rust: ${target} is in no crate (no Cargo.toml): its Rust files are not checked`);
    }
    for (const p of projects)
      units.push({ dir: p, ecosystem: e, languages: languagesAt(p, e), kind: "project" });
    if (!above && projects.length) units.push(...looseUnits(e, target, projects, tree, holds, notes));
    assignCovered(
      units.filter((u) => u.ecosystem === e && u.kind !== "loose"),
      found.filter((d) => holds(d, e) && !projects.includes(d)),
    );
  }
  return { units, notes };
}

/** Each covered project to the deepest of `units` it is in (projects no unit holds are left out). */
function assignCovered(units: ProjectUnit[], covered: readonly string[]): void {
  for (const dir of covered) {
    const owner = units
      .filter((u) => u.dir !== dir && isWithin(u.dir, dir))
      .sort((a, b) => b.dir.length - a.dir.length)[0];
    if (owner) (owner.covered ??= []).push(dir);
  }
}

/**
 * The files of `e` under `target` outside its `projects`: each folder holding some and no project a unit,
 * each file directly in a folder that does hold one a unit (at most MAX_LOOSE_FILES; the rest noted).
 * Go and Rust files outside any module or crate are only noted: their tools cannot check them.
 */
function looseUnits(
  e: Ecosystem,
  target: string,
  projects: readonly string[],
  tree: ReadonlyMap<string, WalkedDir>,
  holds: (dir: string, e: Ecosystem) => boolean,
  notes: string[],
): ProjectUnit[] {
  const found: { dir: string; languages: ProjectLanguage[] }[] = [];
  let over = 0;
  const visit = (dir: string) => {
    const walked = tree.get(dir);
    if (!walked) return;
    for (const name of [...walked.names].sort()) {
      const language = languageOfFile(name);
      if (!language || ECOSYSTEM_OF[language] !== e || !isFileOf(name, language)) continue;
      if (found.length >= MAX_LOOSE_FILES) over++;
      else found.push({ dir: path.join(dir, name), languages: [language] });
    }
    for (const child of walked.children) {
      if (projects.includes(child) || !holds(child, e)) continue;
      if (projects.some((p) => isWithin(child, p))) visit(child);
      else
        found.push({ dir: child, languages: LANGUAGES_OF[e].filter((l) => holdsLanguage(tree, child, l)) });
    }
  };
  visit(target);
  const shown = (list: readonly { dir: string }[]) =>
    list
      .slice(0, 5)
      .map((f) => path.relative(target, f.dir))
      .join(", ") + (list.length > 5 ? ", ..." : "");
  if (e === "go" || e === "rust") {
    if (found.length)
      notes.push(
        `${e}: ${shown(found)} ${found.length === 1 ? "is" : "are"} in no ${e === "go" ? "Go module" : "crate"} ` +
          `below ${target}: not checked`,
      );
    return [];
  }
  if (over)
    notes.push(
      `${e}: ${over} more files outside its projects below ${target} are not checked; check them by path`,
    );
  return found.map((f) => ({ dir: f.dir, ecosystem: e, languages: f.languages, kind: "loose" as const }));
}

function holdsLanguage(
  tree: ReadonlyMap<string, WalkedDir>,
  dir: string,
  language: ProjectLanguage,
): boolean {
  const walked = tree.get(dir);
  if (!walked) return false;
  return walked.languages.has(language) || walked.children.some((c) => holdsLanguage(tree, c, language));
}

/** The units of `target` (projectLayout's), of the given languages' ecosystems only when given. */
export function projectUnits(
  target: string,
  root: string = target,
  languages?: readonly string[],
): ProjectUnit[] {
  const units = projectLayout(target, root).units;
  if (!languages) return units;
  const wanted = new Set(
    languages.filter((l): l is ProjectLanguage => l in ECOSYSTEM_OF).map((l) => ECOSYSTEM_OF[l]),
  );
  return units.filter((u) => wanted.has(u.ecosystem));
}
