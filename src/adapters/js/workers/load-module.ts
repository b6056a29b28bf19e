/** Loads a tool module inside a worker: an absolute entry file (the project's copy) or a bundled name. */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { requireWithCodeCache } from "./code-cache.js";

const loaded = new Map<string, Promise<unknown>>();
const require = createRequire(import.meta.url);

/** Whether Node loads `file` as CommonJS: .cjs, or .js whose nearest package.json is not "type": "module". */
export function isCommonJsFile(file: string): boolean {
  if (file.endsWith(".cjs")) return true;
  if (!file.endsWith(".js")) return false;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, "package.json");
    if (fs.existsSync(pkg)) {
      try {
        return (JSON.parse(fs.readFileSync(pkg, "utf8")) as { type?: unknown }).type !== "module";
      } catch {
        return false;
      }
    }
    if (path.dirname(dir) === dir) return true;
  }
}

/**
 * The module's API: CommonJS exports (the default export) merged with any named ESM exports. The file
 * `import()` would load is resolved first; a CommonJS one is loaded with require, the same file through
 * the loader `import()` would end in, minus the named-export scan of its source (typescript.js is 9 MB:
 * `import()` took 3-4 times as long as `require` on this machine).
 */
export function loadModule(
  specifier: string,
  /** Compile a CommonJS entry with the server's V8 code cache (code-cache.ts): for one large bundle. */
  options: { codeCache?: boolean } = {},
): Promise<unknown> {
  let found = loaded.get(specifier);
  if (!found) {
    const url = path.isAbsolute(specifier) ? pathToFileURL(specifier).href : import.meta.resolve(specifier);
    const file = url.startsWith("file:") ? fileURLToPath(url) : undefined;
    found =
      file && isCommonJsFile(file)
        ? Promise.resolve().then(() => {
            const exports = (options.codeCache ? requireWithCodeCache(file) : require(file)) as Record<
              string,
              unknown
            >;
            return { default: exports, ...exports };
          })
        : import(url).then((m: Record<string, unknown>) => {
            const def = m.default;
            return def && typeof def === "object" ? { ...m, ...def } : m;
          });
    loaded.set(specifier, found);
  }
  return found;
}
