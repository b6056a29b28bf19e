/**
 * The path allowlist. Every path a tool receives went through `resolve`: text checks, resolution
 * against a base directory, canonicalization (realpath: `..` and symlinks resolved, must exist),
 * containment by path components, and a file/directory kind check.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import { isWithinPath } from "./fast-relative.js";
import { projectRootOf } from "./project-root.js";

export type PathKind = "file" | "directory" | "any";

export const MAX_PATH_BYTES = 4096;

export interface ResolvedRoots {
  /** Canonical roots that exist. */
  effective: string[];
  /** Configured roots that were dropped, with why. */
  dropped: { path: string; reason: string }[];
}

/** Canonicalizes configured roots; ones that do not exist (or are not directories) are dropped. */
export function resolveRoots(configured: readonly string[]): ResolvedRoots {
  const effective: string[] = [];
  const dropped: { path: string; reason: string }[] = [];
  for (const root of configured) {
    try {
      const real = fs.realpathSync.native(root);
      if (!fs.statSync(real).isDirectory()) dropped.push({ path: root, reason: "not a directory" });
      else if (!effective.includes(real)) effective.push(real);
    } catch {
      dropped.push({ path: root, reason: "does not exist" });
    }
  }
  return { effective, dropped };
}

/** True when `child` is `root` or lies inside it, compared by whole path components. */
export const isWithin = isWithinPath;

/** Rejects strings that are not plausible paths before touching the file system. */
export function checkPathText(input: string, label = "path"): void {
  if (typeof input !== "string" || input.trim() === "")
    throw new ToolError("invalid_input", `${label} must be a non-empty path`);
  if (Buffer.byteLength(input) > MAX_PATH_BYTES)
    throw new ToolError("invalid_input", `${label} is longer than ${MAX_PATH_BYTES} bytes`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(input))
    throw new ToolError("invalid_input", `${label} contains control characters`);
}

export class Allowlist {
  readonly roots: ResolvedRoots;

  constructor(
    readonly configured: readonly string[],
    readonly cwd: string,
  ) {
    this.roots = resolveRoots(configured);
  }

  private fail(message: string): never {
    throw new ToolError("path_validation", message, { allowed_paths: this.roots.effective });
  }

  /** The allowed root containing a canonical path, if any. */
  rootOf(canonical: string): string | undefined {
    return this.roots.effective.filter((r) => isWithin(r, canonical)).sort((a, b) => b.length - a.length)[0];
  }

  /**
   * Resolves a user-supplied path to its canonical absolute form inside an allowed root.
   * Throws ToolError (invalid_input for malformed text, path_validation otherwise).
   */
  resolve(input: string, options: { kind?: PathKind; base?: string; label?: string } = {}): string {
    const label = options.label ?? "path";
    checkPathText(input, label);
    const absolute = this.locate(input, options.base);
    let canonical: string;
    try {
      canonical = fs.realpathSync.native(absolute);
    } catch {
      this.fail(`${label} does not exist: ${input}`);
    }
    if (!this.rootOf(canonical)) this.fail(`${label} is outside the allowed paths: ${input}`);
    const kind = options.kind ?? "any";
    if (kind !== "any") {
      const st = fs.statSync(canonical);
      if (kind === "file" && !st.isFile()) this.fail(`${label} must be a file, but is a directory: ${input}`);
      if (kind === "directory" && !st.isDirectory())
        this.fail(`${label} must be a directory, but is a file: ${input}`);
    }
    return canonical;
  }

  /**
   * Where a user path points: against `base` when given, and when nothing is there, against the project root
   * of `base` (a call's `files` are relative to its `path`, but results on a sub-folder show files relative to
   * the project root: `src/pkg/a.py`, given back to a call on `src`, is that file); without `base`, against the
   * working directory, and when nothing is there, against the project root of the working directory and then
   * each allowed root (in that order): results show paths relative to the project root they are about
   * (findings/display-path.ts), so every shown path is accepted back.
   */
  locate(input: string, base: string | undefined): string {
    const direct = path.resolve(base ?? this.cwd, input);
    if (path.isAbsolute(input) || fs.existsSync(direct)) return direct;
    if (base !== undefined) {
      const baseRoot = this.rootOf(base);
      const shownFrom = baseRoot ? path.resolve(projectRootOf(base, baseRoot), input) : undefined;
      return shownFrom && fs.existsSync(shownFrom) ? shownFrom : direct;
    }
    const cwdRoot = this.rootOf(this.cwd);
    const bases = [...(cwdRoot ? [projectRootOf(this.cwd, cwdRoot)] : []), ...this.roots.effective];
    for (const b of bases) {
      const candidate = path.resolve(b, input);
      if (fs.existsSync(candidate)) return candidate;
    }
    return direct;
  }

  /**
   * Checks a path that may not exist yet (e.g. a file about to be written): its nearest existing
   * ancestor is canonicalized and must be inside a root.
   */
  resolvePossiblyMissing(input: string, options: { base?: string; label?: string } = {}): string {
    const label = options.label ?? "path";
    checkPathText(input, label);
    const absolute = this.locate(input, options.base);
    let existing = absolute;
    const rest: string[] = [];
    while (!fs.existsSync(existing)) {
      rest.unshift(path.basename(existing));
      const parent = path.dirname(existing);
      if (parent === existing) this.fail(`${label} has no existing ancestor: ${input}`);
      existing = parent;
    }
    const canonical = path.join(fs.realpathSync.native(existing), ...rest);
    if (!this.rootOf(canonical)) this.fail(`${label} is outside the allowed paths: ${input}`);
    return canonical;
  }
}
