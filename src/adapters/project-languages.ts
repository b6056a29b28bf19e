/**
 * Which languages a project (or file) is written in, from its files and configs: what format_check, lint and
 * type_check default to, and how a tool tells that it would check nothing. Bounded walks, no file contents.
 */
import fs from "node:fs";
import path from "node:path";

export type ProjectLanguage = "python" | "typescript" | "javascript" | "go" | "rust" | "ruby";

const EXTENSIONS: Record<ProjectLanguage, RegExp> = {
  python: /\.pyi?$/,
  typescript: /\.[cm]?tsx?$/,
  javascript: /\.[cm]?jsx?$/,
  go: /\.go$/,
  rust: /\.rs$/,
  ruby: /\.(?:rb|rake|gemspec)$|^(?:Gemfile|Rakefile)$/,
};

/** Whether a file is one of a language's (by its name: `.go`, `.rb`, `Gemfile`...). */
export function isFileOf(file: string, language: ProjectLanguage): boolean {
  return EXTENSIONS[language].test(path.basename(file));
}

const MARKERS: [string, ProjectLanguage][] = [
  ["pyproject.toml", "python"],
  ["setup.py", "python"],
  ["setup.cfg", "python"],
  ["requirements.txt", "python"],
  ["Pipfile", "python"],
  ["tsconfig.json", "typescript"],
  ["package.json", "javascript"],
  ["go.mod", "go"],
  ["Cargo.toml", "rust"],
  ["Gemfile", "ruby"],
  [".rubocop.yml", "ruby"],
];

/** Folders no tool should walk for a project's own files (virtualenvs, dependencies, builds, VCS). */
const SKIPPED = new Set([
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

/** Up to `limit` entries are looked at: enough to find a language, never a whole monorepo's walk. */
function* walk(dir: string, limit = 5000): Generator<string> {
  const queue = [dir];
  let seen = 0;
  while (queue.length) {
    const d = queue.shift() as string;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > limit) return;
      if (e.isDirectory()) {
        if (!SKIPPED.has(e.name) && !e.name.startsWith(".")) queue.push(path.join(d, e.name));
      } else if (e.isFile()) yield e.name;
    }
  }
}

/** Whether `target` is, or holds (outside vendored folders), a file of `language`. */
export function hasFilesOf(target: string, language: ProjectLanguage): boolean {
  return hasFilesMatching(target, EXTENSIONS[language]);
}

/** Whether `target` is, or holds (outside vendored folders), a file whose name matches `pattern`. */
export function hasFilesMatching(target: string, pattern: RegExp): boolean {
  const st = fs.statSync(target, { throwIfNoEntry: false });
  if (!st) return false;
  if (!st.isDirectory()) return pattern.test(target);
  for (const name of walk(target)) if (pattern.test(name)) return true;
  return false;
}

/**
 * The languages of `target`, most specific first: a file's by its extension; a directory's from its
 * config markers (tsconfig.json → typescript, package.json → javascript, pyproject.toml → python, ...)
 * and the files it holds. TypeScript projects count as JavaScript too when they hold .js files.
 */
export function projectLanguages(target: string): ProjectLanguage[] {
  const st = fs.statSync(target, { throwIfNoEntry: false });
  if (!st) return [];
  if (!st.isDirectory())
    return (Object.keys(EXTENSIONS) as ProjectLanguage[]).filter((l) => EXTENSIONS[l].test(target));
  const found = new Set<ProjectLanguage>();
  for (const [marker, language] of MARKERS) if (fs.existsSync(path.join(target, marker))) found.add(language);
  for (const name of walk(target))
    for (const l of Object.keys(EXTENSIONS) as ProjectLanguage[]) if (EXTENSIONS[l].test(name)) found.add(l);
  // A package.json of a TypeScript project does not make it a JavaScript one unless it holds .js files.
  if (found.has("typescript") && !hasFilesOf(target, "javascript")) found.delete("javascript");
  if (found.has("python") && !hasFilesOf(target, "python") && found.size > 1) found.delete("python");
  return (["typescript", "javascript", "python", "go", "rust", "ruby"] as ProjectLanguage[]).filter((l) =>
    found.has(l),
  );
}
