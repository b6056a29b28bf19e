/**
 * Symbolic links inside a directory that lead out of the allowed roots. Tools given a directory, or run
 * in one (black, flake8, bandit, mypy, ruff, pytest, ESLint, tsc, gofmt, cargo, go, RuboCop), follow
 * symlinked source files, some also symlinked folders or `mod m;` files, so a link planted in the
 * project would make them read, or a formatter or fixer rewrite, files outside the allowed paths.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import { sharedTree } from "./tree-scan.js";
import type { Allowlist } from "./allowlist.js";

/** Folders not looked into: no tool reads sources there (a virtualenv links to the system Python by design). */
const SKIPPED = new Set([".git", ".hg", ".svn", "node_modules", ".mcp-cache", "__pycache__"]);
/**
 * Files tools read as sources, in every language the server runs tools for; other links (a shared README,
 * a venv's bin/python) are not their concern.
 */
const SOURCE_FILE = /\.(pyi?|pyw|ipynb|[cm]?[jt]sx?|go|rs|rb|rake|gemspec|ru)$|^(Gemfile|Rakefile)$/;
/** Bounds of one search, so a huge tree costs at most this many directory entries. */
const MAX_ENTRIES = 200_000;
const MAX_FOUND = 20;

/**
 * Links under `dir` (a folder, or a source file, whose real location fails `allowed`), at most MAX_FOUND.
 * Dangling links are ignored (they lead nowhere a tool could read). Folders are listed through the shared
 * tree scan, so checking an unchanged tree again costs one `lstat` per folder.
 */
export function linksLeaving(dir: string, allowed: (real: string) => boolean): string[] {
  const found: string[] = [];
  let budget = MAX_ENTRIES;
  const walk = (d: string): void => {
    const listed = sharedTree.children(d);
    if (!listed) return;
    const { entries, paths } = listed;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as (typeof entries)[number];
      if (found.length >= MAX_FOUND || --budget < 0) return;
      // Files need no path: only links and folders are looked at (a big tree has mostly files).
      if (entry.kind !== "link" && entry.kind !== "dir") continue;
      // Joined once per listing by the shared scan.
      const abs = paths[i] as string;
      if (entry.kind === "link") {
        let real: string;
        let isDir: boolean;
        try {
          real = fs.realpathSync.native(abs);
          isDir = fs.statSync(real).isDirectory();
        } catch {
          continue;
        }
        // A linked node_modules or virtualenv is the project's chosen environment, not its sources.
        if (SKIPPED.has(entry.name) || (isDir && isVirtualenv(real))) continue;
        if ((isDir || SOURCE_FILE.test(entry.name)) && !allowed(real)) found.push(abs);
      } else if (entry.kind === "dir" && !SKIPPED.has(entry.name) && !isVirtualenv(abs)) walk(abs);
    }
  };
  walk(dir);
  return found;
}

function isVirtualenv(dir: string): boolean {
  return sharedTree.entries(dir)?.some((e) => e.name === "pyvenv.cfg") ?? false;
}

/** Throws path_validation when `dir` holds links a tool would follow out of the allowed paths. */
export function refuseLinksLeaving(dir: string, allowlist: Allowlist): void {
  const links = linksLeaving(dir, (real) => allowlist.rootOf(real) !== undefined);
  if (links.length)
    throw new ToolError(
      "path_validation",
      `symbolic links in ${dir} lead outside the allowed paths, and the tool would follow them: ${links.join(", ")}`,
      { allowed_paths: allowlist.roots.effective },
    );
}

/**
 * The check for every directory a tool is handed or runs in: each absolute argument that is a directory
 * inside the allowed paths, and the working directory (cargo, go and RuboCop read the project from it;
 * rustfmt follows `mod m;` to the files beside the one it is given). The engine does this before every
 * process starts; warm daemons that receive the same argv, dmypy and pyright's watcher, call it themselves
 * since no process is started for them.
 */
export function refuseLinksInArgs(args: readonly string[], allowlist: Allowlist, cwd?: string): void {
  // Each folder once: a tool run on "." in its project names the folder it runs in (ruff on pylint walked
  // the whole tree twice a process).
  for (const arg of new Set(cwd ? [...args, cwd] : args))
    if (
      path.isAbsolute(arg) &&
      allowlist.rootOf(arg) &&
      fs.statSync(arg, { throwIfNoEntry: false })?.isDirectory()
    )
      refuseLinksLeaving(arg, allowlist);
}
