/**
 * What ruff's configuration reads beyond the config files in the tree (the result cache's closure,
 * src/cache/closure.ts): the files each config `extend`s, followed as ruff follows them (relative to the
 * extending file, `~` and environment variables expanded), wherever they lie; and the file kinds its
 * `include` and `extend-include` add to ruff's file set (`*.pyw`), so that a new file of such a kind is
 * noticed. A file outside the allowed paths is named but not read: the run is then not cached.
 */
import os from "node:os";
import path from "node:path";
import { insideRoots, kindOfPattern, type Closure } from "../../cache/closure.js";
import type { ResultCache } from "../../cache/result-cache.js";
import { ruffOptionsOf } from "./ruff-settings.js";

/** Config files ruff reads its own settings from (pyproject.toml: its [tool.ruff] table). */
const RUFF_OWN_CONFIG = /^(?:pyproject\.toml|ruff\.toml|\.ruff\.toml)$/;
/** Longest `extend` chain followed (ruff refuses a cycle; this bounds a broken one). */
const MAX_DEPTH = 32;

/** An `extend` value as ruff resolves it: `~` and `$VAR`/`${VAR}` expanded, relative to the extending file. */
export function extendTarget(value: string, from: string, env: NodeJS.ProcessEnv = process.env): string {
  const expanded = value
    .replace(/^~(?=\/|$)/, os.homedir())
    .replace(
      /\$\{(\w+)\}|\$(\w+)/g,
      (_m, a: string | undefined, b: string | undefined) => env[a ?? b ?? ""] ?? "",
    );
  return path.resolve(path.dirname(from), expanded);
}

function patterns(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The closure of ruff's settings from these config files (those of the tree, and `--config`). */
export function ruffClosure(cache: ResultCache, configs: readonly string[]): Closure {
  const files = new Set<string>();
  const kinds = new Set<string>();
  const visit = (file: string, depth: number) => {
    if (depth > MAX_DEPTH || !insideRoots(cache, file)) return;
    let options: Record<string, unknown> | undefined;
    try {
      options = ruffOptionsOf(file);
    } catch {
      return; // ruff reports a config it cannot parse in its own words, and such a run is not kept
    }
    for (const key of ["include", "extend-include"])
      for (const p of patterns(options?.[key])) {
        const kind = kindOfPattern(p);
        if (kind) kinds.add(kind);
      }
    if (typeof options?.extend !== "string") return;
    const next = extendTarget(options.extend, file);
    if (files.has(next)) return;
    files.add(next);
    visit(next, depth + 1);
  };
  for (const c of configs) if (RUFF_OWN_CONFIG.test(path.basename(c))) visit(c, 0);
  return { files: [...files], kinds: [...kinds] };
}
