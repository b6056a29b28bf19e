/** Where Rust crates are (Cargo.toml, the workspace root, the edition) and how cargo runs without writing to them. */
import fs from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { ToolError } from "../../errors.js";
import { isDirectory, nearestMarkerDir } from "../marker-dir.js";
import { projectScratchDir, scratchProjectOf } from "../../exec/sandbox/scratch.js";

/** The directory of the nearest Cargo.toml from target up to root; undefined when none. */
export function findCrate(target: string, root: string): string | undefined {
  return nearestMarkerDir(target, root, "Cargo.toml");
}

/** The crate directory for a cargo command: the target must be a directory holding Cargo.toml. */
export function requireCrateDir(target: string, tool: string): string {
  if (!isDirectory(target) || !fs.existsSync(path.join(target, "Cargo.toml")))
    throw new ToolError(
      "invalid_input",
      `${tool} runs on a crate: ${target} is not a directory with a Cargo.toml`,
    );
  return target;
}

function readManifest(dir: string): Record<string, unknown> | undefined {
  try {
    return parseToml(fs.readFileSync(path.join(dir, "Cargo.toml"), "utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function table(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * Whether `dir`'s Cargo.toml is a workspace's root (a `[workspace]` table). cargo run there builds only the
 * root package (ripgrep: 450 tests of 1,229, none of its member crates') or the `default-members`; a check
 * of the project runs them all, with `--workspace`, as the project's own CI does.
 */
export function isWorkspaceRoot(dir: string): boolean {
  return table(readManifest(dir)?.workspace) !== undefined;
}

/**
 * The edition for rustfmt on a single file: the nearest Cargo.toml's `[package] edition`; when that is
 * `edition.workspace = true` (or absent), the first literal `[workspace.package] edition` in an ancestor
 * Cargo.toml inside root; else 2021 (seed 000's rule).
 */
export function editionFor(file: string, root: string): string {
  let dir: string | undefined = findCrate(file, root);
  let first = true;
  while (dir) {
    const manifest = readManifest(dir);
    const pkgEdition = first ? table(manifest?.package)?.edition : undefined;
    if (typeof pkgEdition === "string") return pkgEdition;
    const wsEdition = table(table(manifest?.workspace)?.package)?.edition;
    if (typeof wsEdition === "string") return wsEdition;
    first = false;
    if (dir === root) break;
    const parent = path.dirname(dir);
    dir = parent.startsWith(root) ? findCrate(parent, root) : undefined;
  }
  return "2021";
}

/** The workspace root of a crate: the nearest ancestor Cargo.toml with a [workspace] table, else the crate. */
export function workspaceRoot(crateDir: string, root: string): string {
  let dir = crateDir;
  for (;;) {
    if (table(readManifest(dir)?.workspace)) return dir;
    if (dir === root || !dir.startsWith(root + path.sep)) return crateDir;
    const parent = findCrate(path.dirname(dir), root);
    if (!parent) return crateDir;
    dir = parent;
  }
}

/**
 * The target directory of a workspace's builds: a private folder of the server's per workspace (a scratch
 * copy's builds go to its original's), so builds never write `target/` into the project (seed 000: clippy works
 * on a read-only mount), repeated checks reuse the build, and what one project's build scripts leave there is
 * never another project's build. Verified before every use (sandbox/scratch.ts).
 */
export function cargoTargetDir(workspace: string): string {
  return projectScratchDir("cargo-target", scratchProjectOf(workspace) ?? workspace);
}
