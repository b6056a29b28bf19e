/**
 * The files of the folders above a project that its tools look up: cargo's `.cargo/config.toml`,
 * rustfmt's `rustfmt.toml` and clippy's `clippy.toml` are searched from the crate up; ty honours a parent
 * `.gitignore`; a golangci-lint or mypy config may sit at a monorepo's root. A project's input set is its
 * own folder, so before these were in no key: a `rustfmt.toml` added beside two crates kept "formatted".
 * Every file of those folders that may be an input (the language's input names) is keyed, up to the allowed
 * root: the server reads nothing beyond it, and the sandbox shows the tools nothing beyond it either.
 */
import path from "node:path";
import { isWithin } from "../paths/allowlist.js";
import type { TreeScanner } from "../paths/tree-scan.js";

/**
 * The files (and links) directly in each folder from `project`'s parent up to `root` whose name `names`
 * takes, and those of each such folder's `subdirs` (`.cargo`); outermost last. Nothing when `project` is
 * the root or outside it.
 */
export function ancestorInputs(
  tree: Pick<TreeScanner, "entries">,
  project: string,
  root: string,
  names: RegExp,
  subdirs: readonly string[] = [],
): string[] {
  const out: string[] = [];
  const take = (dir: string) => {
    for (const e of tree.entries(dir) ?? [])
      if ((e.kind === "file" || e.kind === "link") && names.test(e.name)) out.push(path.join(dir, e.name));
  };
  if (project === root || !isWithin(root, project)) return out;
  for (let dir = path.dirname(project); isWithin(root, dir); dir = path.dirname(dir)) {
    take(dir);
    for (const sub of subdirs) take(path.join(dir, sub));
    if (dir === root || dir === path.dirname(dir)) break;
  }
  return out;
}
