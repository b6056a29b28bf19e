/**
 * Inline source for clippy (issue 16). clippy lints crates, so inline code is checked as the file it names
 * inside a scratch copy of that file's workspace (the project itself is never written), built into the
 * shared scratch target dir. Only that file's findings are reported, at its real path.
 */
import { copyIntoScratch } from "../scratch-copy.js";
import fs from "node:fs";
import path from "node:path";
import type { ToolContext } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import type { InlineSource } from "../lint-options.js";
import { findCrate, workspaceRoot } from "./cargo-env.js";
import { makeScratchDir } from "../../exec/sandbox/scratch.js";
import { refuseLinksLeaving } from "../../paths/outside-links.js";
import { pinManifestPaths } from "./scratch-manifests.js";
import { clippyEnv } from "./clippy-conf.js";

const MAX_COPIED_FILES = 5000;
const MAX_COPIED_BYTES = 64 * 1024 * 1024;
const SKIPPED = new Set(["target", "node_modules"]);

/** Files cargo compiles without a `mod` declaration: the crate's targets. */
const TARGET_FILE = /^(src\/(lib|main)\.rs|src\/bin\/[^/]+\.rs|(tests|examples|benches)\/[^/]+\.rs)$/;

export interface ScratchCrate {
  /** The crate directory of the copy (cargo runs there). */
  crate: string;
  /** The workspace root of the copy (cargo's messages name files relative to it). */
  workspace: string;
  /** clippy's environment: the real crate's (clippy-conf.ts), the copy holding no config above it. */
  env: { CLIPPY_CONF_DIR: string };
  /** Where the inline code was written in the copy. */
  file: string;
  /** Whether the file is one of the crate's own test, example or bench targets. */
  allTargets: boolean;
  remove(): void;
}

/** A scratch copy of the workspace of `source.path` with the inline code in its place. */
export function scratchCrate(ctx: ToolContext, source: InlineSource): ScratchCrate {
  const root = ctx.allowlist.rootOf(source.path) ?? path.dirname(source.path);
  const crate = findCrate(source.path, root);
  if (!crate)
    throw new ToolError(
      "invalid_input",
      `source_code: clippy lints crates, and no Cargo.toml holds ${source.path}`,
    );
  const rel = path.relative(crate, source.path).split(path.sep).join("/");
  const allTargets = /^(tests|examples|benches)\//.test(rel);
  if (!fs.existsSync(source.path) && !TARGET_FILE.test(rel))
    throw new ToolError(
      "invalid_input",
      `source_code: cargo would not compile ${rel} (no module declares it); name an existing module file or a ` +
        "target file (src/lib.rs, src/main.rs, src/bin/*.rs, tests/*.rs, examples/*.rs)",
    );
  const copy = scratchWorkspace(ctx, crate);
  try {
    const file = copy.toScratch(source.path);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, source.code, { mode: 0o600 });
    return {
      crate: copy.crate,
      workspace: copy.workspace,
      env: copy.env,
      file,
      allTargets,
      remove: copy.remove,
    };
  } catch (err) {
    copy.remove();
    throw err;
  }
}

export interface ScratchWorkspace {
  /** The crate directory of the copy (cargo runs there). */
  crate: string;
  /** The workspace root of the copy. */
  workspace: string;
  /** clippy's environment: the real crate's (clippy-conf.ts), the copy holding no config above it. */
  env: { CLIPPY_CONF_DIR: string };
  /** A file of the real workspace → its copy, and back. */
  toScratch(file: string): string;
  toReal(file: string): string;
  remove(): void;
}

/**
 * A scratch copy of a crate's whole workspace, where cargo may rewrite files (a dry run of `cargo clippy
 * --fix`, the server's own passes of suggestions): the project is only ever written from it by the caller.
 */
export function scratchWorkspace(ctx: ToolContext, crate: string): ScratchWorkspace {
  const root = ctx.allowlist.rootOf(crate) ?? crate;
  const workspace = workspaceRoot(crate, root);
  // The copy leaves links out: one leading out of the allowed paths (a `mod m;` file) is refused as it
  // is for every other tool, rather than found missing by the compiler.
  refuseLinksLeaving(workspace, ctx.allowlist);
  const scratch = makeScratchDir("mcq-clippy-inline-", { project: workspace });
  const remove = () => fs.rmSync(scratch, { recursive: true, force: true });
  try {
    copyIntoScratch(workspace, scratch, {
      skip: (name) => name.startsWith(".") || SKIPPED.has(name),
      budget: { files: MAX_COPIED_FILES, bytes: MAX_COPIED_BYTES },
      tooLarge: `the workspace is too large to copy into a scratch directory for clippy (over ${MAX_COPIED_FILES} files or ${MAX_COPIED_BYTES} bytes)`,
      // Each Cargo.toml copied: its path dependencies pinned to the real folders.
      onFile: (real, copy) => {
        if (path.basename(real) === "Cargo.toml") pinManifestPaths(real, copy, workspace, ctx.allowlist);
      },
    });
  } catch (err) {
    remove();
    throw err;
  }
  return {
    crate: path.join(scratch, path.relative(workspace, crate)),
    workspace: scratch,
    env: clippyEnv(crate, root),
    toScratch: (file) => path.join(scratch, path.relative(workspace, file)),
    toReal: (file) => path.join(workspace, path.relative(scratch, file)),
    remove,
  };
}
