/**
 * The `files` filter of a type check: which diagnostics to show. Plain paths (files or directories)
 * must exist inside the allowed paths; globs are checked to stay inside `base`, then matched.
 */
import picomatch from "picomatch";
import type { ToolContext } from "../../engine/tool.js";
import { checkPatterns } from "../../adapters/js/eslint-scope.js";
import { isWithin } from "../../paths/allowlist.js";

const GLOB_CHARS = /[*?[\]{}!]/;

/** A predicate on absolute file paths, or undefined when no filter was given (the full view). */
export function fileFilter(
  ctx: ToolContext,
  base: string,
  files: readonly string[] | undefined,
): ((file: string) => boolean) | undefined {
  if (!files) return undefined;
  const tests = files.map((f) => {
    if (!GLOB_CHARS.test(f)) {
      const want = ctx.allowlist.resolve(f, { base, label: "files" });
      return (file: string) => file === want || isWithin(want, file);
    }
    const [absolute] = checkPatterns(ctx, [f], base);
    return picomatch(absolute as string, { dot: true });
  });
  return (file) => tests.some((t) => t(file));
}
