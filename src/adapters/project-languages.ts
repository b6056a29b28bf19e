/**
 * What a project (or file) is written in, from its files and manifests: the languages every tool's default
 * follows (see tool-choice.ts), weighed so that what the project is comes first. Bounded walks, names only.
 */
import fs from "node:fs";
import path from "node:path";
import { sharedTree } from "../paths/tree-scan.js";
import { scriptLanguage } from "./script-files.js";

export type ProjectLanguage = "python" | "typescript" | "javascript" | "go" | "rust" | "ruby";

export const ALL_LANGUAGES: readonly ProjectLanguage[] = [
  "typescript",
  "javascript",
  "python",
  "go",
  "rust",
  "ruby",
];

const EXTENSIONS: Record<ProjectLanguage, RegExp> = {
  python: /\.pyi?$/,
  typescript: /\.[cm]?tsx?$/,
  javascript: /\.[cm]?jsx?$/,
  go: /\.go$/,
  rust: /\.rs$/,
  // RuboCop's own targets that are unambiguously Ruby (its AllCops Include: rack's config.ru files were
  // refused as `files` of lint), not `*.spec`, which RPM's are too.
  ruby: /\.(?:rb|rake|gemspec|ru|rbw|jbuilder|builder|podspec|thor|rabl)$|^(?:Gemfile|Rakefile|Guardfile|Capfile|Vagrantfile|Podfile|Brewfile|Berksfile|Thorfile|Dangerfile|Appraisals|Steepfile)$/,
};

/** Whether a file is one of a language's (by its name: `.go`, `.rb`, `Gemfile`...). */
export function isFileOf(file: string, language: ProjectLanguage): boolean {
  return EXTENSIONS[language].test(path.basename(file));
}

/**
 * Whether the file at `file` (a path, not a bare name) is one of a language's: by its name, or, a name with no
 * dot, by the interpreter of its `#!` line (script-files.ts): a named script, as each tool run by hand takes it.
 */
export function isPathOf(file: string, language: ProjectLanguage): boolean {
  return isFileOf(file, language) || languageOfPath(file) === language;
}

/** The language of the file at `file` (a path): by its name, or by its `#!` line (isPathOf). */
export function languageOfPath(file: string): ProjectLanguage | undefined {
  return languageOfFile(file) ?? scriptLanguage(file);
}

/** The files that say a directory is a project of a language (its manifests and tool configs). */
const MANIFESTS: Record<ProjectLanguage, RegExp> = {
  python: /^(?:pyproject\.toml|setup\.py|setup\.cfg|Pipfile|requirements[\w.-]*\.txt|uv\.lock)$/,
  typescript: /^tsconfig(?:\.[\w-]+)?\.json$/,
  javascript: /^package\.json$/,
  go: /^go\.(?:mod|work)$/,
  rust: /^Cargo\.toml$/,
  ruby: /^(?:Gemfile|[\w.-]+\.gemspec|\.rubocop\.yml)$/,
};

/** Folders no tool should walk for a project's own files (virtualenvs, dependencies, builds, VCS). */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  "node_modules",
  ".git",
  ".hg",
  ".venv",
  "venv",
  "env",
  "__pycache__",
  ".mypy_cache",
  ".ruff_cache",
  ".mcp-cache",
  "dist",
  "build",
  "target",
  ".tox",
  ".next",
  "coverage",
]);

/**
 * Folders whose files do not make a project what it is: its docs site, examples, vendored copies and test
 * data of other languages (a Ruby gem's `docs/` with a package.json is still a Ruby gem).
 */
const NOT_THE_CODE = new Set([
  "docs",
  "doc",
  "site",
  "website",
  "examples",
  "example",
  "samples",
  "vendor",
  "third_party",
  "fixtures",
  "__fixtures__",
  "testdata",
]);

interface WalkedFile {
  name: string;
  path: string;
  /** Under a docs/examples/fixtures folder (relative to the walk's start). */
  aside: boolean;
}

/**
 * The walk behind language detection, breadth first. Bounded per folder (its first `filesPerDir` files
 * weigh enough) and in folders, never in entries overall: an entry budget was spent on one language's big
 * folders before another's deeper ones were reached (250 TypeScript files in each `ts-N/src` hid every
 * `py-N/src/pkgN` of a monorepo, and lint answered "no python files"). Folders are listed through the shared scan, so a
 * walk of an unchanged tree costs a stat per folder.
 */
function* walk(dir: string, maxDirs = 20_000, filesPerDir = 1_000): Generator<WalkedFile> {
  const queue: { dir: string; aside: boolean }[] = [{ dir, aside: false }];
  let dirs = 0;
  for (let next = 0; next < queue.length; next++) {
    if (++dirs > maxDirs) return;
    const d = queue[next] as { dir: string; aside: boolean };
    // The process's shared scan: a folder unchanged since it was last listed is not listed again.
    // With each entry's path joined once per listing (joining them again here was most of a walk's time).
    const listed = sharedTree.children(d.dir);
    if (!listed) continue;
    const { entries, paths } = listed;
    let files = 0;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i] as (typeof entries)[number];
      if (e.kind === "dir") {
        if (!SKIPPED_DIRS.has(e.name) && !e.name.startsWith("."))
          queue.push({ dir: paths[i] as string, aside: d.aside || NOT_THE_CODE.has(e.name) });
      } else if (e.kind === "file" && ++files <= filesPerDir)
        yield { name: e.name, path: paths[i] as string, aside: d.aside };
    }
  }
}

/**
 * Whether `target` is, or holds (outside vendored folders), a file of `language`: a file named is also one by
 * its `#!` line (isPathOf) unless `scripts` is false (a tool that takes none: tsc); a folder's are by their
 * names, as the walks of the tools that skip scripts.
 */
export function hasFilesOf(target: string, language: ProjectLanguage, scripts = true): boolean {
  if (scripts && fs.statSync(target, { throwIfNoEntry: false })?.isFile()) return isPathOf(target, language);
  return hasFilesMatching(target, EXTENSIONS[language]);
}

/** Whether `target` is, or holds (outside vendored folders), a file whose name matches `pattern`. */
export function hasFilesMatching(target: string, pattern: RegExp): boolean {
  const st = fs.statSync(target, { throwIfNoEntry: false });
  if (!st) return false;
  if (!st.isDirectory()) return pattern.test(target);
  for (const f of walk(target)) if (pattern.test(f.name)) return true;
  return false;
}

/**
 * A file of `language` under the folder `target` that stands for it (explain_rules resolves a config for
 * it): the first outside vendored folders, breadth first, else the first anywhere; undefined for none.
 */
export function firstFileOf(target: string, language: ProjectLanguage): string | undefined {
  let aside: string | undefined;
  for (const f of walk(target)) {
    if (!EXTENSIONS[language].test(f.name)) continue;
    if (!f.aside) return f.path;
    aside ??= f.path;
  }
  return aside;
}

/** The language of a file, by its name ("" when none). */
export function languageOfFile(file: string): ProjectLanguage | undefined {
  const name = path.basename(file);
  return ALL_LANGUAGES.find((l) => EXTENSIONS[l].test(name));
}

export interface LanguageEvidence {
  /** Manifests of the language in the directory itself (pyproject.toml, Gemfile, go.mod, ...). */
  manifests: string[];
  /** Files of the language where the code lives. */
  code: number;
  /** Files of the language under docs, examples, fixtures or vendored folders only. */
  aside: number;
}

export interface ProjectProfile {
  /** The languages with files under the target, weightiest first (see projectProfile). */
  languages: ProjectLanguage[];
  evidence: Partial<Record<ProjectLanguage, LanguageEvidence>>;
}

/** JavaScript and TypeScript are one ecosystem when weighing: TypeScript first within it. */
const ECOSYSTEM: Record<ProjectLanguage, string> = {
  typescript: "js",
  javascript: "js",
  python: "python",
  go: "go",
  rust: "rust",
  ruby: "ruby",
};

/**
 * What `target` is written in. A file: its language by name or `#!` line (languageOfPath). A directory: every language with files under it
 * (outside vendored folders), ordered by weight: languages with code outside docs/examples/fixtures before
 * those only there (which are dropped when another language has code), then those whose manifest is in the
 * directory, then by how many files they have. A manifest without files of its language is no language.
 */
export function projectProfile(target: string): ProjectProfile {
  const st = fs.statSync(target, { throwIfNoEntry: false });
  if (!st) return { languages: [], evidence: {} };
  if (!st.isDirectory()) {
    const language = languageOfPath(target);
    return language
      ? { languages: [language], evidence: { [language]: { manifests: [], code: 1, aside: 0 } } }
      : { languages: [], evidence: {} };
  }
  // A long-lived server's watcher vouches for the walk while no folder it listed has changed (tree-scan.ts).
  const profile = sharedTree.remember(JSON.stringify(["profile", target]), () => weighLanguages(target));
  return { languages: [...profile.languages], evidence: profile.evidence };
}

/** projectProfile of the folder `target`. */
function weighLanguages(target: string): ProjectProfile {
  const evidence: Partial<Record<ProjectLanguage, LanguageEvidence>> = {};
  const of = (l: ProjectLanguage) => (evidence[l] ??= { manifests: [], code: 0, aside: 0 });
  for (const f of walk(target)) {
    const l = ALL_LANGUAGES.find((lang) => EXTENSIONS[lang].test(f.name));
    if (l) of(l)[f.aside ? "aside" : "code"]++;
  }
  // Unreadable: no manifests.
  const names = (sharedTree.entries(target) ?? []).map((e) => e.name);
  for (const name of names)
    for (const l of ALL_LANGUAGES)
      if (MANIFESTS[l].test(name) && evidence[l]) evidence[l].manifests.push(name);
  let languages = ALL_LANGUAGES.filter((l) => evidence[l]);
  if (languages.some((l) => (evidence[l]?.code ?? 0) > 0))
    languages = languages.filter((l) => (evidence[l]?.code ?? 0) > 0);
  // Weighed per ecosystem (a TypeScript project's .js config files are part of it), then within it.
  const weight = (l: ProjectLanguage) => {
    const mates = languages.filter((m) => ECOSYSTEM[m] === ECOSYSTEM[l]);
    const sum = (k: "code" | "aside") => mates.reduce((n, m) => n + (evidence[m]?.[k] ?? 0), 0);
    return [mates.some((m) => evidence[m]?.manifests.length) ? 1 : 0, sum("code"), sum("aside")];
  };
  languages = [...languages].sort((a, b) => {
    const wa = weight(a);
    const wb = weight(b);
    for (let i = 0; i < wa.length; i++) if (wa[i] !== wb[i]) return (wb[i] as number) - (wa[i] as number);
    return ALL_LANGUAGES.indexOf(a) - ALL_LANGUAGES.indexOf(b);
  });
  return { languages, evidence };
}

/** The languages of `target`, weightiest first (projectProfile's order). */
export function projectLanguages(target: string): ProjectLanguage[] {
  return projectProfile(target).languages;
}
