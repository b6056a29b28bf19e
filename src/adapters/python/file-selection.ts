/** The Python files a `files` argument picks: globs relative to the target, or paths inside the allowlist. */
import fs from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { ToolError } from "../../errors.js";
import type { ToolContext } from "../../engine/tool.js";

const GLOB = /[*?[\]{}]/;

/**
 * Files chosen by `patterns` under `target` (its folder when a file): a relative glob matches the files
 * `listUnder(base)` finds; any other entry is resolved through the allowlist, a folder standing for the
 * files `listUnder` finds in it. Sorted. Nothing matched is invalid_input naming the argument and the tool.
 */
export function selectPythonFiles(
  ctx: ToolContext,
  target: string,
  patterns: readonly string[],
  listUnder: (dir: string) => string[],
  tool: string,
): string[] {
  const base = fs.statSync(target).isFile() ? path.dirname(target) : target;
  const chosen = new Set<string>();
  let underBase: string[] | undefined;
  for (const pattern of patterns) {
    if (GLOB.test(pattern) && !path.isAbsolute(pattern)) {
      const match = picomatch(pattern, { dot: true });
      underBase ??= listUnder(base);
      for (const f of underBase) if (match(path.relative(base, f))) chosen.add(f);
      continue;
    }
    const resolved = ctx.allowlist.resolve(pattern, { base, label: "files" });
    if (fs.statSync(resolved).isDirectory()) for (const f of listUnder(resolved)) chosen.add(f);
    else chosen.add(resolved);
  }
  if (chosen.size === 0)
    throw new ToolError(
      "invalid_input",
      `files matched no Python file under ${base} (${tool}): ${patterns.join(", ")}`,
    );
  return [...chosen].sort();
}
