/**
 * Where a Python type checker runs in a path holding nested projects (DESIGN.md principle 10). mypy, pyright
 * and ty read one configuration per run, the one found from where they start: run at a repository root, they
 * check `packages/a` with the root's settings, where `cd packages/a && mypy .` applies its `[tool.mypy]
 * strict = true`. So a nested Python project that configures a type checker itself (its own `[tool.mypy]`,
 * `pyrightconfig.json`, `[tool.ty]`...) is type-checked at its own root with its own checkers, and the run of
 * the project around it leaves it out; a nested project that configures none stays the outer run's, whose
 * settings it shares by hand too. As tsc's nested tsconfigs (check/detect.ts nestedTscChecks).
 */
import fs from "node:fs";
import path from "node:path";
import { isWithin } from "../paths/allowlist.js";
import { typeCheckersConfiguredIn } from "./project-configs.js";
import { projectLayout } from "./projects.js";

/**
 * The nested Python projects below `target` (a folder inside `root`) that are type-checked at their own
 * root: those its unit covers (projects.ts) whose own folder configures a type checker. Sorted; deeper ones
 * too (each run leaves out those below it).
 */
export function ownTypeCheckRoots(target: string, root: string): string[] {
  if (!fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) return [];
  const unit = projectLayout(target, root).units.find((u) => u.ecosystem === "python" && u.dir === target);
  return (unit?.covered ?? []).filter((d) => typeCheckersConfiguredIn(d).length > 0).sort();
}

/** Whether `file` is in one of `dirs` (a nested project checked at its own root). */
export function inOwnRoot(dirs: readonly string[], file: string): boolean {
  return dirs.some((d) => isWithin(d, file));
}

/** `dirs` relative to `base`, with `/`: how a run's key and notes name them. */
export function relativeDirs(base: string, dirs: readonly string[]): string[] {
  return dirs.map((d) => path.relative(base, d).split(path.sep).join("/"));
}
