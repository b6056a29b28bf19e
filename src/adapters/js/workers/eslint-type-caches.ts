/**
 * typescript-eslint keeps its TypeScript programs and project service between lint runs of one process, and
 * they do not see a file changed on disk since (b.ts's `no-floating-promises` from a.ts's old type, measured
 * in the warm worker: stale after a.ts was edited). ESLint's CLI starts fresh every run; the warm worker
 * clears those caches before each request that lints, in every copy of typescript-estree this process loaded
 * (a project's own, the bundled one). A config without type information loads none: nothing to clear.
 */
import { createRequire } from "node:module";

const CLEAR_CACHES = /[\\/]@typescript-eslint[\\/]typescript-estree[\\/]dist[\\/]clear-caches\.js$/;

export function clearTypeInformation(): void {
  // The require cache is the process's one (Module._cache); ES imports of CommonJS go through it too.
  const cache = createRequire(import.meta.url).cache;
  for (const [file, mod] of Object.entries(cache)) {
    if (!CLEAR_CACHES.test(file)) continue;
    const clear = (mod?.exports as { clearCaches?: unknown } | undefined)?.clearCaches;
    if (typeof clear === "function") (clear as () => void)();
  }
}
