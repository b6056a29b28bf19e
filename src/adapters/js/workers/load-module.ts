/** Loads a tool module inside a worker: an absolute entry file (the project's copy) or a bundled name. */
import path from "node:path";
import { pathToFileURL } from "node:url";

const loaded = new Map<string, Promise<unknown>>();

/** The module's API: CommonJS exports (the default export) merged with any named ESM exports. */
export function loadModule(specifier: string): Promise<unknown> {
  let found = loaded.get(specifier);
  if (!found) {
    const url = path.isAbsolute(specifier) ? pathToFileURL(specifier).href : specifier;
    found = import(url).then((m: Record<string, unknown>) => {
      const def = m.default;
      return def && typeof def === "object" ? { ...m, ...def } : m;
    });
    loaded.set(specifier, found);
  }
  return found;
}
