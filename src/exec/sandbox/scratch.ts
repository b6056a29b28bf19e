/**
 * The server's private folders: under the per-user scratch root `<tmpdir>/mcq-<uid>` (0700, never bound into
 * any sandbox), each folder the server makes for a call (inline-source copies, dry runs, report folders,
 * black's empty config) or for a project (cargo's target dir) is its own 0700 folder. A sandboxed run is shown
 * only the folders of this registry that its own command names (launch.ts: its argv, environment or working
 * directory), so nothing one run writes there is seen by a run of another call or project.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export type ScratchAccess = "read-write" | "read-only";

interface Registered {
  access: ScratchAccess;
  /** The project folder this one serves (a scratch copy's original workspace), for per-project state. */
  project?: string;
}

let checked: string | undefined;
const registry = new Map<string, Registered>();

/** The scratch root, created and checked (ours, a real folder, 0700) on first use; throws when unusable. */
export function scratchRoot(): string {
  const dir = path.join(os.tmpdir(), `mcq-${process.getuid?.() ?? "user"}`);
  if (checked === dir && fs.existsSync(dir)) return dir;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory())
    throw new Error(`scratch folder ${dir} is not a folder (a link?): refusing to use it`);
  if (typeof process.getuid === "function" && st.uid !== process.getuid())
    throw new Error(`scratch folder ${dir} belongs to another user: refusing to use it`);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  checked = dir;
  return dir;
}

/**
 * A new private folder (like fs.mkdtempSync, 0700), for one call. `read-only`: its runs may read it but not
 * change it (a config the server wrote and keeps). `project`: the project it copies (cargo's target dir key).
 */
export function makeScratchDir(
  prefix: string,
  options: { access?: ScratchAccess; project?: string } = {},
): string {
  const dir = fs.mkdtempSync(path.join(scratchRoot(), prefix));
  if (registry.size >= 1000) for (const d of registry.keys()) if (!fs.existsSync(d)) registry.delete(d);
  registry.set(dir, {
    access: options.access ?? "read-write",
    ...(options.project ? { project: options.project } : {}),
  });
  return dir;
}

/**
 * The folder `<name>-<hash of project>` under the scratch root, for state kept per project (cargo's target
 * dir): verified before every use (a real folder, ours, 0700), and replaced by a fresh one when it is not.
 */
export function projectScratchDir(name: string, project: string): string {
  const root = scratchRoot();
  if (!swept.has(name)) {
    swept.add(name);
    sweepOrphans(root, name);
  }
  const key = createHash("sha256").update(project).digest("hex").slice(0, 20);
  const dir = path.join(root, `${name}-${key}`);
  if (!isOwnPrivateFolder(dir)) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { mode: 0o700 });
    if (!isOwnPrivateFolder(dir)) throw new Error(`cannot make the private folder ${dir}`);
    // Which project it serves, beside it (no sandbox sees the root): the sweep below reads it.
    fs.writeFileSync(`${dir}.project`, project, { mode: 0o600 });
  }
  registry.set(dir, { access: "read-write", project });
  return dir;
}

const swept = new Set<string>();

/** Once per process: the folders of `name` kept for projects that no longer exist (a deleted checkout) go. */
function sweepOrphans(root: string, name: string): void {
  const record = new RegExp(`^${name}-[0-9a-f]{20}\\.project$`);
  let entries: string[];
  try {
    entries = fs.readdirSync(root).filter((e) => record.test(e));
  } catch {
    return;
  }
  for (const entry of entries) {
    try {
      const file = path.join(root, entry);
      const project = fs.readFileSync(file, "utf8");
      if (!path.isAbsolute(project) || fs.existsSync(project)) continue;
      fs.rmSync(file.slice(0, -".project".length), { recursive: true, force: true });
      fs.rmSync(file, { force: true });
    } catch {
      // Another server sweeping at the same time: left for the next one.
    }
  }
}

/** A folder the server can still use: not a link, a folder, this user's, 0700. */
function isOwnPrivateFolder(dir: string): boolean {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st || st.isSymbolicLink() || !st.isDirectory()) return false;
  if (typeof process.getuid === "function" && st.uid !== process.getuid()) return false;
  return (st.mode & 0o777) === 0o700;
}

/** The project a scratch folder (or a path inside one) serves, when it was made for one. */
export function scratchProjectOf(p: string): string | undefined {
  const top = topFolder(p);
  return top ? registry.get(top)?.project : undefined;
}

/** `<root>/<folder>` for a path inside the scratch root; undefined outside it. */
function topFolder(p: string): string | undefined {
  const root = checked;
  if (!root || !p.startsWith(`${root}/`)) return undefined;
  const name = p.slice(root.length + 1).split("/")[0];
  return name ? path.join(root, name) : undefined;
}

/** Forgets a folder (removed by its owner). */
export function forgetScratchDir(dir: string): void {
  registry.delete(dir);
}

export interface ScratchBind {
  path: string;
  access: ScratchAccess;
}

/**
 * The registered folders the texts name (a run's argv, environment values and working directory): the only
 * scratch folders its sandbox shows. A folder that is no longer the server's own (removed, replaced by a
 * link) is left out.
 */
export function scratchFoldersNamed(texts: Iterable<string>): ScratchBind[] {
  const root = checked;
  if (!root || registry.size === 0) return [];
  const found = new Map<string, ScratchAccess>();
  for (const text of texts) {
    let at = text.indexOf(`${root}/`);
    while (at >= 0) {
      const top = topFolder(text.slice(at).split(/[\s:=,;'"]/)[0] as string);
      const entry = top ? registry.get(top) : undefined;
      if (top && entry && !found.has(top)) found.set(top, entry.access);
      at = text.indexOf(`${root}/`, at + root.length + 1);
    }
  }
  return [...found]
    .filter(([dir]) => isOwnPrivateFolder(dir))
    .map(([dir, access]) => ({ path: dir, access }));
}
