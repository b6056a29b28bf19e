// The JavaScript a V8 start-up snapshot is built from (scripts/bundle-cli.mjs, scripts/bundle-hook.mjs). A
// snapshot keeps its script's whole source in the heap it deserializes on every start: comments and
// indentation were a third of it, and one non-ASCII character anywhere (a comment's "’", a regex's "µ")
// makes V8 keep all of it two bytes per character. Without them the command line's blob went from 24 to
// 15 MB and its start from ~115 to ~95 ms (docs/check.md).
import fs from "node:fs";
import { createRequire } from "node:module";

/** esbuild options for a snapshot's bundle: no comments or indentation (names and statements unchanged). */
export const SNAPSHOT_SOURCE = { minifyWhitespace: true };

/**
 * esbuild plugin: a deserialized snapshot has no dynamic import(), and web-tree-sitter's ES build imports
 * "module" that way; its CommonJS build requires it (and esbuild turns any other import() of a built-in into a
 * require()). The hook's snapshot parses command lines with it, the command line's reads package.json scripts
 * (src/adapters/js/tsc-scripts.ts).
 */
export const webTreeSitterCjs = {
  name: "web-tree-sitter-cjs",
  setup(b) {
    b.onResolve({ filter: /^web-tree-sitter$/ }, () => ({
      path: createRequire(import.meta.url).resolve("web-tree-sitter"),
    }));
  },
};

/**
 * Rewrites `file` with every non-ASCII character as \uXXXX escapes (UTF-16 units): what is left of them
 * after minifying is in string and regex literals, where an escape means the same character.
 */
export function asciiOnly(file) {
  const text = fs.readFileSync(file, "utf8");
  // Without the u flag each UTF-16 unit is matched alone: a surrogate pair becomes two escapes, as V8 reads it.
  const ascii = text.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  if (ascii !== text) fs.writeFileSync(file, ascii);
}

/**
 * esbuild's CommonJS output wraps every `import fs from "node:fs"` in its __toESM helper: a new object with a
 * getter (a closure and its context) for each export of the module, at each import site: 448 sites and
 * ~19,000 getters in the command line's bundle, ~2.9 MB of the heap every start from its snapshot
 * deserializes. The helper is rewritten so that a module's wrapper is made once and shared by its import
 * sites: the same live getters (imports are only read), made anew when the module's export names have
 * changed since (a module first imported while it was still loading). The blob went from 16.5 to 15.6 MB,
 * its deserialization ~6.5 ms shorter (docs/check.md).
 */
export function shareInteropWrappers(file) {
  const text = fs.readFileSync(file, "utf8");
  const helper = "var __toESM=";
  const at = text.indexOf(helper);
  if (at < 0 || text.indexOf(helper, at + 1) >= 0)
    throw new Error(
      `${file}: esbuild's __toESM helper is not there once; scripts/snapshot-source.mjs expects it`,
    );
  const shared =
    "var __toESMShared=new WeakMap();" +
    "function __toESM(mod,isNodeMode){" +
    'if(mod==null||typeof mod!=="object"&&typeof mod!=="function")return __toESMEach(mod,isNodeMode);' +
    "const names=Object.getOwnPropertyNames(mod);const slot=isNodeMode?1:0;" +
    "let byMode=__toESMShared.get(mod);const known=byMode&&byMode[slot];" +
    "if(known&&known.names.length===names.length&&known.names.every((n,i)=>n===names[i]))return known.wrapper;" +
    "const wrapper=__toESMEach(mod,isNodeMode);" +
    "if(!byMode)__toESMShared.set(mod,byMode=[]);" +
    "byMode[slot]={names,wrapper};return wrapper}";
  fs.writeFileSync(file, text.slice(0, at) + shared + "var __toESMEach=" + text.slice(at + helper.length));
}

/** What every snapshot bundle goes through after esbuild: its interop wrappers shared, ASCII only. */
export function finishSnapshotSource(file) {
  shareInteropWrappers(file);
  asciiOnly(file);
}
