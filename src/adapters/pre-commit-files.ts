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
import { isVirtualenv } from "./python/python-files.js";
import {
  hookSelector,
  pinnedTool,
  PRE_COMMIT_CONFIG,
  readPreCommitConfig,
  selectionNote,
} from "./pre-commit-config.js";

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
): Promise<{ files?: string[]; note: string; args: string[]; pinned?: string } | undefined> {
  // No config from the target up to the allowed root: no git to ask (a file target, or no git at all, too).
  if (!fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  if (!configAbove(target, ctx.allowlist.rootOf(target) ?? target)) return undefined;
  const top = (await gitOutput(ctx, target, ["rev-parse", "--show-toplevel"]).catch(() => undefined))?.[0];
  if (!top) return undefined;
  const config = readPreCommitConfig(top);
  // Every hook of that id (pylint runs black twice: its code, and its documentation's examples apart).
  const hooks = config?.hooks.filter((h) => h.id === id && h.passFilenames) ?? [];
  if (!config || !hooks.length) return undefined;
  const selectors = hooks.map((h) => hookSelector(config, h));
  const first = hooks[0] as (typeof hooks)[number];
  const args = first.args;
  // The version the hook pins, when its repository says it: the tool run here may be another.
  const pin = pinnedTool(first);
  const pinned = pin?.tool === id ? pin.version : undefined;
  const pinNote = pinned ? `; the hook pins ${id} ${pinned} (${first.repo} ${first.rev})` : "";
  if (selectors.some((s) => !s))
    return {
      note: `${PRE_COMMIT_CONFIG}'s patterns for ${id} are not ones RE2 runs: ${id} ran on the whole folder${pinNote}`,
      args,
      ...(pinned ? { pinned } : {}),
    };
  const listed = await gitOutput(ctx, target, ["ls-files", ...PROJECT_FILES]).catch(() => undefined);
  if (!listed) return undefined;
  const inVirtualenv = virtualenvTest(top);
  const files = [...new Set(listed)]
    .filter((rel) => rel && ofKind(rel) && selectors.some((selects) => selects?.(rel)) && !inVirtualenv(rel))
    .map((rel) => path.join(top, rel))
    .sort();
  const selections = hooks.map((h) => selectionNote(config, h)).join("; ");
  return {
    files,
    note: `${id} ${verb} the files the project's pre-commit hands it (${PRE_COMMIT_CONFIG}: ${selections}): ${files.length} file(s)${pinNote}`,
    args,
    ...(pinned ? { pinned } : {}),
  };
}

/**
 * Whether a repository path lies in a virtualenv (a folder with `pyvenv.cfg`): an untracked `.venv/` the
 * project does not ignore is listed by git, but it is no file of the project's (pre-commit's own
 * `--all-files` takes tracked files only). Each folder is asked once.
 */
function virtualenvTest(top: string): (rel: string) => boolean {
  const known = new Map<string, boolean>();
  const inside = (dir: string): boolean => {
    if (dir === "." || dir === "") return false;
    let v = known.get(dir);
    if (v === undefined) {
      v = isVirtualenv(path.join(top, dir)) || inside(path.posix.dirname(dir));
      known.set(dir, v);
    }
    return v;
  };
  return (rel) => inside(path.posix.dirname(rel));
}

/** Whether a pre-commit config is in `dir` or a folder above it, up to `root`. */
function configAbove(dir: string, root: string): boolean {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, PRE_COMMIT_CONFIG))) return true;
    if (d === root || path.dirname(d) === d || !isWithin(root, d)) return false;
  }
}
