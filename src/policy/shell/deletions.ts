/**
 * What a command deletes, as trees and patterns, and whether that takes the root, the home folder, the
 * project or the working directory with it. A deletion is judged by what it can remove: `rm -r` of a path
 * (a glob by what it can match: `/[a-z]*` can match `/home`), `P/*`-like broad globs (the whole content of
 * P), `find P -delete` or `-exec rm` when nothing narrows the match, `rsync --delete` onto P, `git clean -fd`
 * (untracked files, so only a folder above the project counts), `mv` of the folder itself, and inline code
 * (`shutil.rmtree`, `fs.rmSync`, `FileUtils.rm_rf`). Pure.
 */
import path from "node:path";
import { broadGlob, globRegExp } from "./find.js";
import type { Deletion } from "./deletion.js";
import type { SimpleCommand } from "./model.js";

export type { Deletion } from "./deletion.js";

/** Every deletion of a command (its writes of kind delete, git clean, inline code). */
export function deletesOf(command: SimpleCommand): Deletion[] {
  const out: Deletion[] = [];
  const name = path.basename(command.argv[0] ?? "");
  const at = (p: string) =>
    path.isAbsolute(p) || command.cwd === undefined ? p : path.resolve(command.cwd, p);
  for (const w of command.writes ?? []) {
    if (w.kind !== "delete") continue;
    if (w.names) continue; // a narrowed find: only what its patterns match
    out.push({
      path: w.dynamic ? w.path : at(w.path),
      recursive: w.recursive === true || name === "mv",
      ...(name === "mv" ? { moved: true } : {}),
      dynamic: w.dynamic,
    });
  }
  if (name === "git" && command.git?.subcommand === "clean") {
    const flags = command.git.flags;
    if (
      flags.some((f) => f === "-f" || f === "--force") &&
      flags.some((f) => ["-d", "-x", "-X"].includes(f))
    ) {
      const pathspecs = command.git.operands.filter((o) => !o.startsWith("-"));
      const cwd = command.git.cwd ?? command.cwd;
      for (const p of pathspecs.length ? pathspecs : ["."])
        out.push(
          cwd === undefined && !path.isAbsolute(p)
            ? { path: p, recursive: true, untracked: true, dynamic: true }
            : { path: path.resolve(cwd ?? "/", p), recursive: true, untracked: true, dynamic: false },
        );
    }
  }
  return out;
}

/** The places a deletion must not take: name → absolute path. */
export interface Critical {
  root: string;
  home: string;
  project: string;
  cwd: string;
}

/** The system's own folders: deleting one (or all it holds) breaks the machine, whoever's home it is. */
const SYSTEM = [
  "/bin",
  "/boot",
  "/etc",
  "/home",
  "/lib",
  "/lib64",
  "/opt",
  "/root",
  "/sbin",
  "/srv",
  "/usr",
  "/var",
  "/Users",
  "/System",
  "/Library",
  "/Applications",
];

/** Whether `pattern` (absolute, globs per component) can name `target` or a folder above it. */
function canName(pattern: string, target: string): boolean {
  const p = pattern.split("/").filter(Boolean);
  const t = target.split("/").filter(Boolean);
  if (p.length > t.length) return false;
  return p.every((component, i) =>
    /[*?[]/.test(component) ? globRegExp(component).test(t[i] as string) : component === t[i],
  );
}

/**
 * Which of the critical places a deletion removes: the place itself or a folder above it, named or matched
 * by a glob; or all of its content through a broad glob (`P/*`, `P/.*`, `P/[a-z]*`) or a recursive
 * deletion of P. Untracked deletions (git clean) count only above the project; moves only of the place itself.
 */
export function destroyed(d: Deletion, places: Critical): string[] {
  if (d.dynamic || !path.isAbsolute(d.path)) return [];
  const normal = d.path === "/" ? "/" : d.path.replace(/\/+$/, "").replace(/\/+/g, "/") || "/";
  const resolved = /[*?[]/.test(normal) ? normal : path.resolve(normal);
  const out = new Set<string>();
  const all: [string, string][] = [
    ...Object.entries(places),
    ...SYSTEM.map((p): [string, string] => ["system", p]),
  ];
  for (const [name, place] of all) {
    const above = resolved === "/" || canName(resolved, place);
    const same =
      above && resolved.split("/").filter(Boolean).length === place.split("/").filter(Boolean).length;
    const parent = path.dirname(resolved);
    const last = path.basename(resolved);
    const content = !d.moved && broadGlob(last) && !/[*?[]/.test(parent) && path.resolve(parent) === place;
    if (d.untracked) {
      if ((name === "project" || name === "cwd") && same) continue;
      if (above || content) out.add(name);
    } else if (d.moved) {
      if (above) out.add(name);
    } else if ((d.recursive && above) || content) out.add(name);
  }
  return [...out];
}

/**
 * Why a deletion whose name is only known when the line runs cannot be judged: unless a static last
 * component pins it (`$DIR/build`) or a static folder inside the project holds it (`build/$X`), it could
 * be any of the critical places (`rm -rf "$DIR"` with DIR empty is `rm -rf /`… or `"$DIR"/*`).
 */
export function unpinned(d: Deletion, places: Critical, cwd: string | undefined): string | undefined {
  if (!d.dynamic || !d.recursive) return undefined;
  const text = d.path;
  const last = text.split("/").filter(Boolean).at(-1) ?? "";
  if (last !== "" && !/[$`]/.test(last) && !broadGlob(last) && last !== "." && last !== "..")
    return undefined;
  const first = text.search(/[$`]/);
  const prefix = first === -1 ? text : text.slice(0, first);
  const dir = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/") + 1) : "";
  if (dir !== "" && cwd !== undefined) {
    const base = path.resolve(cwd, dir);
    const inProject = base.startsWith(`${places.project}/`);
    const aboveAny = Object.values(places).some(
      (p) => p === base || p.startsWith(`${base}/`) || base === "/",
    );
    if (inProject && !aboveAny) return undefined;
  }
  return `it deletes ${text.slice(0, 120)}, a path only known when the line runs`;
}
