/**
 * What RuboCop's configuration reads beyond the .rubocop.yml files in the tree (the result cache's
 * closure, src/cache/closure.ts): each `inherit_from` file, followed as RuboCop follows it (relative to
 * the inheriting file, wherever it lies), and the local Ruby files a config `require`s (custom cops). A
 * remote `inherit_from` (a URL, which RuboCop downloads) is not something the server reads: such a run is
 * not cached, and says so. Gems (`inherit_gem`, a required gem) are keyed by Gemfile.lock.
 */
import fs from "node:fs";
import path from "node:path";
import { insideRoots, type Closure } from "../../cache/closure.js";
import type { ResultCache } from "../../cache/result-cache.js";
import { yaml } from "../../yaml-lazy.js";

const RUBOCOP_CONFIG = /^\.rubocop[\w.-]*\.yml$/;
const MAX_DEPTH = 32;

function list(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The closure of RuboCop's settings from these config files (those of the tree, and `--config`). */
export function rubocopClosure(cache: ResultCache, configs: readonly string[]): Closure {
  const files = new Set<string>();
  let uncached: string | undefined;
  const visit = (file: string, depth: number) => {
    if (depth > MAX_DEPTH || !insideRoots(cache, file)) return;
    let doc: Record<string, unknown> | undefined;
    try {
      doc = yaml().parse(fs.readFileSync(file, "utf8")) as Record<string, unknown> | undefined;
    } catch {
      return; // RuboCop reports a config it cannot read in its own words; such a run is not kept
    }
    for (const req of [...list(doc?.require), ...list(doc?.plugins)])
      if (/^(?:\.{1,2}\/|\/)/.test(req)) files.add(path.resolve(path.dirname(file), req));
    for (const parent of list(doc?.inherit_from)) {
      if (/^https?:\/\//i.test(parent)) {
        uncached ??= `the RuboCop config ${file} inherits from ${parent}, which the server does not fetch`;
        continue;
      }
      const next = path.resolve(path.dirname(file), parent);
      if (files.has(next)) continue;
      files.add(next);
      visit(next, depth + 1);
    }
  };
  for (const c of configs) if (RUBOCOP_CONFIG.test(path.basename(c))) visit(c, 0);
  return { files: [...files], ...(uncached && { uncached }) };
}
