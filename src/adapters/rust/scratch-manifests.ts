/**
 * The manifests of a crate's scratch copy (clippy's inline source, dry runs and fix passes). A relative
 * `path` in a Cargo.toml names a folder beside the workspace; in the copy it would name a folder beside the
 * scratch copy instead, where nothing of the project is (or where something else could be). So each path
 * dependency that leaves the workspace is pointed at the real folder when the allowed paths hold it, and
 * the call is refused when they do not; a crate target or build script outside the workspace is refused
 * (cargo would compile, and a fix could write, a file the copy does not hold).
 */
import fs from "node:fs";
import path from "node:path";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { ToolError } from "../../errors.js";
import type { Allowlist } from "../../paths/allowlist.js";

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === "object" && v !== null && !Array.isArray(v);

/** Keys whose tables name dependencies (each `{ path = "..." }` entry is one). */
const DEPENDENCY_TABLES = new Set(["dependencies", "dev-dependencies", "build-dependencies"]);

export interface ManifestPath {
  /** Where in the manifest, e.g. `dependencies.shared.path`. */
  key: string;
  value: string;
  /** Whether it names a dependency (else a target file, a build script or a workspace). */
  dependency: boolean;
  /** The table holding it, to rewrite in place. */
  holder: Table;
  field: string;
}

/** Every relative path a manifest names (dependencies, [patch], [replace], targets, build, workspace). */
export function manifestPaths(manifest: Table): ManifestPath[] {
  const out: ManifestPath[] = [];
  const dependencyTable = (t: unknown, where: string) => {
    if (!isTable(t)) return;
    for (const [name, spec] of Object.entries(t))
      if (isTable(spec) && typeof spec.path === "string")
        out.push({
          key: `${where}.${name}.path`,
          value: spec.path,
          dependency: true,
          holder: spec,
          field: "path",
        });
  };
  const dependencies = (t: Table, where: string) => {
    for (const key of DEPENDENCY_TABLES) dependencyTable(t[key], where ? `${where}.${key}` : key);
  };
  dependencies(manifest, "");
  if (isTable(manifest.target))
    for (const [cfg, t] of Object.entries(manifest.target)) if (isTable(t)) dependencies(t, `target.${cfg}`);
  if (isTable(manifest.workspace)) dependencyTable(manifest.workspace.dependencies, "workspace.dependencies");
  if (isTable(manifest.patch))
    for (const [registry, t] of Object.entries(manifest.patch)) dependencyTable(t, `patch.${registry}`);
  dependencyTable(manifest.replace, "replace");
  const pkg = manifest.package;
  if (isTable(pkg))
    for (const field of ["build", "workspace"])
      if (typeof pkg[field] === "string")
        out.push({ key: `package.${field}`, value: pkg[field], dependency: false, holder: pkg, field });
  for (const kind of ["lib", "bin", "test", "example", "bench"]) {
    const targets = manifest[kind];
    for (const t of Array.isArray(targets) ? targets : [targets])
      if (isTable(t) && typeof t.path === "string")
        out.push({ key: `${kind}.path`, value: t.path, dependency: false, holder: t, field: "path" });
  }
  return out;
}

const inside = (p: string, dir: string) => p === dir || p.startsWith(dir + path.sep);

/**
 * Rewrites the copy of `manifestFile` (a Cargo.toml of `workspace`, copied to `copyFile`): paths leaving the
 * workspace become the real absolute folder (dependencies inside the allowed paths) or a path_validation
 * error. Manifests with no such path are left byte for byte as they are.
 */
export function pinManifestPaths(
  manifestFile: string,
  copyFile: string,
  workspace: string,
  allowlist: Allowlist,
): void {
  let manifest: Table;
  try {
    manifest = parseToml(fs.readFileSync(manifestFile, "utf8")) as Table;
  } catch {
    return; // cargo reports a broken manifest in its own words
  }
  let changed = false;
  for (const p of manifestPaths(manifest)) {
    if (path.isAbsolute(p.value) && !p.dependency) continue;
    const resolved = path.resolve(path.dirname(manifestFile), p.value);
    let real: string;
    try {
      real = fs.realpathSync.native(resolved);
    } catch {
      real = resolved; // missing: cargo says so (and nothing outside is read)
    }
    if (inside(real, workspace) && !path.isAbsolute(p.value)) continue;
    if (!allowlist.rootOf(real))
      throw new ToolError(
        "path_validation",
        `${manifestFile}: ${p.key} = "${p.value}" leads to ${real}, outside the allowed paths ` +
          `(${allowlist.roots.effective.join(", ")}); add it with --allowed-paths if cargo should read it`,
        { allowed_paths: allowlist.roots.effective },
      );
    if (!p.dependency)
      throw new ToolError(
        "invalid_input",
        `${manifestFile}: ${p.key} = "${p.value}" is outside the workspace (${workspace}); clippy's fixes and ` +
          "inline source work in a copy of the workspace, which would not hold it",
      );
    if (path.isAbsolute(p.value)) continue;
    p.holder[p.field] = real;
    changed = true;
  }
  if (changed) fs.writeFileSync(copyFile, stringifyToml(manifest), { mode: 0o600 });
}
