/**
 * The files a project's pre-commit hands one of its hooks on `pre-commit run --all-files`: the repository's
 * files (git's tracked ones, and the untracked ones it does not ignore: what an agent just wrote) under the
 * target, of the hook's kind, selected by the config's and the hook's `files` and `exclude`
 * (pre-commit-config.ts). A tool run on a project so configured lints what the project's own hook lints,
 * not the folders it excludes (psf/black: `exclude: ^(profiling/|tests/data/)`, flake8's `^src/blib2to3/`).
 */
import fs from "node:fs";
import path from "node:path";
import type { ToolContext } from "../engine/tool.js";
import { gitOutput } from "./git-sandbox.js";
import { PROJECT_FILES } from "./git-ls-files.js";
import { isWithin } from "../paths/allowlist.js";
import { hookSelector, PRE_COMMIT_CONFIG, readPreCommitConfig, selectionNote } from "./pre-commit-config.js";

/** pre-commit's `python` files, as its file identification tags them by name. */
export const isPythonFile = (file: string) => file.endsWith(".py");

/** `types_or: [python, pyi]` (mirrors-mypy's hook): Python sources and stubs. */
export const isPythonOrStub = (file: string) => file.endsWith(".py") || file.endsWith(".pyi");

/**
 * The absolute files pre-commit hands the hook `id` under `target`, with the note saying so; or only a note
 * when the hook's patterns cannot be followed; undefined when the project's pre-commit has no such hook.
 */
export async function preCommitFiles(
  ctx: ToolContext,
  target: string,
  id: string,
  ofKind: (file: string) => boolean,
  /** What the tool did to them, in the note (`linted`, `checked`). */
  verb = "linted",
): Promise<{ files?: string[]; note: string; args: string[] } | undefined> {
  // No config from the target up to the allowed root: no git to ask (a file target, or no git at all, too).
  if (!fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  if (!configAbove(target, ctx.allowlist.rootOf(target) ?? target)) return undefined;
  const top = (await gitOutput(ctx, target, ["rev-parse", "--show-toplevel"]).catch(() => undefined))?.[0];
  if (!top) return undefined;
  const config = readPreCommitConfig(top);
  const hook = config?.hooks.find((h) => h.id === id && h.passFilenames);
  if (!config || !hook) return undefined;
  const selects = hookSelector(config, hook);
  if (!selects)
    return {
      note: `${PRE_COMMIT_CONFIG}'s patterns for ${id} are not ones RE2 runs: ${id} ran on the whole folder`,
      args: hook.args,
    };
  const listed = await gitOutput(ctx, target, ["ls-files", ...PROJECT_FILES]).catch(() => undefined);
  if (!listed) return undefined;
  const files = [...new Set(listed)]
    .filter((rel) => rel && ofKind(rel) && selects(rel))
    .map((rel) => path.join(top, rel))
    .sort();
  return {
    files,
    note: `${id} ${verb} the files the project's pre-commit hands it (${PRE_COMMIT_CONFIG}: ${selectionNote(config, hook)}): ${files.length} file(s)`,
    args: hook.args,
  };
}

/** Whether a pre-commit config is in `dir` or a folder above it, up to `root`. */
function configAbove(dir: string, root: string): boolean {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, PRE_COMMIT_CONFIG))) return true;
    if (d === root || path.dirname(d) === d || !isWithin(root, d)) return false;
  }
}
