/**
 * The CLIPPY_CONF_DIR a crate's clippy runs with: the folder of the clippy.toml clippy finds from the crate
 * up (the nearest with `clippy.toml` or `.clippy.toml`, within the allowed root), else the crate. Cargo
 * re-runs clippy when CLIPPY_CONF_DIR changes (clippy records it in its dep-info) or when the config it
 * read changes, but not when a config appears where none was read: with the crate always given, a
 * `clippy.toml` added in a parent folder left the build's old findings in place (by hand too, until a
 * source changed). Naming the folder of the config clippy will read makes its appearance a change.
 * Every clippy run takes its environment from here (lint, inline code, and the fix in a scratch copy, which
 * holds no config above the workspace nor a dotfile: its runs name the real folder, read-only to them).
 */
import fs from "node:fs";
import path from "node:path";
import { isWithin } from "../../paths/allowlist.js";

const NAMES = ["clippy.toml", ".clippy.toml"];

export function clippyConfDir(crate: string, root: string): string {
  for (let dir = crate; isWithin(root, dir); dir = path.dirname(dir)) {
    if (NAMES.some((n) => fs.existsSync(path.join(dir, n)))) return dir;
    if (dir === root || dir === path.dirname(dir)) break;
  }
  return crate;
}

/** The environment every clippy run of `crate` (the real one, not a scratch copy) has. */
export function clippyEnv(crate: string, root: string): { CLIPPY_CONF_DIR: string } {
  return { CLIPPY_CONF_DIR: clippyConfDir(crate, root) };
}
