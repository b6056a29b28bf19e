/**
 * Where an edit lands, as the filesystem will resolve it: the path given, each link on the way (a file
 * symlink, a dangling one whose target the write would create, a linked parent folder), the file it reaches,
 * and the other names of a hard-linked file; each named relative to the roots a protected path is found
 * from (the allowed root, the git work tree holding the file, its project root), so `.github/` under a
 * project below the allowed root is still `.github/`. Reads only metadata, and the first bytes of the file.
 */
import fs from "node:fs";
import path from "node:path";
import { dirEntries } from "../paths/dir-entries.js";
import { HEADER_BYTES } from "./edit-context.js";
import { gitConfigLookup, repoTopOf } from "./git/config-lookup.js";

export interface EditTarget {
  /** The absolute path of this name of the file. */
  absolute: string;
  /** The paths policies see for it: relative to each root that holds it (or the absolute path when none does). */
  paths: string[];
  /** Inside none of the roots. */
  outside: boolean;
}

export interface ResolvedEdit {
  targets: EditTarget[];
  /** The file the edit reaches (the end of the links), when it is inside the roots. */
  file?: string;
  /** Its first bytes, when it exists and is a regular file. */
  header?: string;
  /** Why where the edit lands cannot be known ("" when it can). */
  undecided: string;
}

const MAX_LINK_HOPS = 40;
/** Entries looked at when searching the other names of a hard-linked file. */
const MAX_WALK_ENTRIES = 50_000;
const PROJECT_MARKERS = [
  ".git",
  "package.json",
  "pyproject.toml",
  "Cargo.toml",
  "go.mod",
  "Gemfile",
  "setup.py",
  "setup.cfg",
  "tsconfig.json",
];

const inside = (root: string, p: string) =>
  p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

function lstat(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/** A path with its existing parent folders resolved (so a linked folder counts as where it leads). */
function canonicalParent(p: string): string {
  const missing: string[] = [];
  let dir = path.dirname(p);
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(dir), ...missing.reverse(), path.basename(p));
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return p;
      missing.push(path.basename(dir));
      dir = parent;
    }
  }
}

/** The roots a path is judged from: each allowed root holding it, the git work tree and project root inside that. */
function rootsOf(p: string, roots: readonly string[]): string[] {
  const out: string[] = [];
  for (const root of roots) {
    if (!inside(root, p)) continue;
    out.push(root);
    let dir = path.dirname(p);
    while (inside(root, dir) && dir !== root) {
      if (PROJECT_MARKERS.some((m) => lstat(path.join(dir, m)))) out.push(dir);
      dir = path.dirname(dir);
    }
  }
  return [...new Set(out)];
}

/**
 * A file in (or the folder of) the hooks git runs for its repository when `core.hooksPath` moves them out of
 * `.git/hooks` (`.githooks/pre-commit`): named as the hook it is, `.git/hooks/<name>`, so the hook policies
 * protect it as they protect `.git/hooks`. The path is git's own answer (`git config --get`, cached), relative
 * to the work tree.
 */
function hookName(absolute: string): string | undefined {
  const top = repoTopOf(path.dirname(absolute));
  if (top === undefined) return undefined;
  const configured = gitConfigLookup("core.hookspath", top, {});
  if (!configured) return undefined;
  const dir = path.resolve(top, configured.replace(/^~(?=\/)/, process.env.HOME ?? "~"));
  if (dir === path.join(top, ".git", "hooks")) return undefined;
  if (absolute === dir) return ".git/hooks";
  return path.dirname(absolute) === dir ? `.git/hooks/${path.basename(absolute)}` : undefined;
}

function targetOf(absolute: string, roots: readonly string[]): EditTarget {
  const holding = rootsOf(absolute, roots);
  if (holding.length === 0) return { absolute, paths: [absolute], outside: true };
  const paths = [...new Set(holding.map((r) => path.relative(r, absolute).split(path.sep).join("/") || "."))];
  const hook = hookName(absolute);
  if (hook !== undefined) paths.push(hook);
  return { absolute, paths, outside: false };
}

/** The other names of a hard-linked file inside the roots (bounded); undefined when the search was cut short. */
function hardLinks(st: fs.Stats, roots: readonly string[]): string[] | undefined {
  const found: string[] = [];
  let seen = 0;
  for (const root of roots) {
    const stack = [root];
    while (stack.length) {
      const dir = stack.pop() as string;
      for (const e of dirEntries(dir)) {
        if (++seen > MAX_WALK_ENTRIES) return undefined;
        const p = path.join(dir, e.name);
        if (e.isDirectory()) stack.push(p);
        else if (e.isFile()) {
          const s = lstat(p);
          if (s && s.ino === st.ino && s.dev === st.dev) found.push(p);
        }
      }
    }
  }
  return [...new Set(found)];
}

function readHeader(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    if (!fs.fstatSync(fd).isFile()) return undefined;
    const buf = Buffer.alloc(HEADER_BYTES);
    const n = fs.readSync(fd, buf, 0, HEADER_BYTES, 0);
    return buf.subarray(0, n).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Every name an edit of `file` (absolute) changes, judged from `roots` (absolute, canonical). */
export function resolveEdit(file: string, roots: readonly string[]): ResolvedEdit {
  const names: string[] = [path.resolve(file)];
  let undecided = "";
  let current = canonicalParent(names[0] as string);
  names.push(current);
  for (let hop = 0; ; hop++) {
    const st = lstat(current);
    if (!st?.isSymbolicLink()) break;
    if (hop >= MAX_LINK_HOPS) {
      undecided = `${file} is a chain of more than ${MAX_LINK_HOPS} symbolic links`;
      break;
    }
    let target: string;
    try {
      target = fs.readlinkSync(current);
    } catch {
      break;
    }
    // A dangling link is followed too: the write creates its target.
    current = canonicalParent(path.resolve(path.dirname(current), target));
    names.push(current);
  }
  const st = lstat(current);
  if (st?.isFile() && st.nlink > 1) {
    const others = hardLinks(st, roots);
    if (others === undefined)
      undecided ||= `${file} has ${st.nlink} hard links and the project is too large to find them all`;
    else {
      names.push(...others);
      if (others.length < st.nlink)
        undecided ||= `${file} has ${st.nlink - others.length} hard link(s) outside the project, which the edit changes too`;
    }
  }
  const unique = [...new Set(names)];
  const targets = unique.map((n) => targetOf(n, roots));
  const header = st?.isFile() ? readHeader(current) : undefined;
  return {
    targets,
    ...(roots.some((r) => inside(r, current)) ? { file: current } : {}),
    ...(header !== undefined ? { header } : {}),
    undecided,
  };
}
