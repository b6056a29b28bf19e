/**
 * ESLint with a type-aware config (typescript-eslint's `project`/`projectService`: a file's findings depend
 * on the types of others) through the result cache as one whole-program entry: keyed by what the per-file key
 * holds (ESLint's version and origin, the config and patterns, the configs in the tree, what is installed,
 * the modules the config loaded) and the content of every source, declaration and JSON file of the project:
 * any change is a miss and a whole run, the same tree again a hit. A project whose TypeScript program reads
 * sources outside it is not cached, and says why: a package linked into node_modules (a workspace's), or a
 * tsconfig that reaches up (`../`) or names project references.
 */
import fs from "node:fs";
import path from "node:path";
import { isWithin } from "../../paths/allowlist.js";
import type { TreeScanner } from "../../paths/tree-scan.js";
import type { ResultCache } from "../../cache/result-cache.js";
import { runWhole } from "../../cache/whole.js";
import { closureOf, type ClosureSpec } from "../../cache/closure.js";
import { listingOf, relPath, scanTarget } from "../cached-run.js";
import { readConfigText } from "../project-configs.js";
import type { WireFileReport } from "./eslint-wire.js";
import type { EslintScope } from "./eslint-scope.js";
import type { CachedReports, EslintCall } from "./eslint-reports.js";

/** What a type-aware lint reads in the project: sources, declarations, JSON modules. */
const TYPED_INPUTS = /\.(?:[cm]?[jt]sx?|vue|svelte|astro|json)$/;
const TSCONFIG = /^tsconfig(?:\.[\w-]+)?\.json$/;

/**
 * Why a project's TypeScript program may read sources outside it (then nothing is cached), or undefined: a
 * link in a node_modules from the project up to the allowed root (listed through the shared tree scan), or a
 * tsconfig reaching up or referencing other projects.
 */
export function readsOutside(
  tree: TreeScanner,
  project: string,
  root: string,
  walkFiles: readonly string[],
): string | undefined {
  for (let dir = project; isWithin(root, dir); dir = path.dirname(dir)) {
    const nm = path.join(dir, "node_modules");
    for (const e of tree.entries(nm) ?? []) {
      if (e.kind === "link" && leavesStore(nm, path.join(nm, e.name)))
        return linkedPackage(project, path.join(nm, e.name));
      if (e.kind === "dir" && e.name.startsWith("@"))
        for (const sub of tree.entries(path.join(nm, e.name)) ?? [])
          if (sub.kind === "link" && leavesStore(nm, path.join(nm, e.name, sub.name)))
            return linkedPackage(project, path.join(nm, e.name, sub.name));
    }
    if (dir === root || dir === path.dirname(dir)) break;
  }
  for (const file of walkFiles) {
    if (!TSCONFIG.test(path.basename(file))) continue;
    if (/"\.\.\/|"references"/.test(readConfigText(file)))
      return `${path.relative(project, file)} reaches outside the project (\`../\` or references): a type-aware lint is not cached`;
  }
  return undefined;
}

/** A link out of its node_modules (a workspace package), not into it (pnpm's `.pnpm` store). */
function leavesStore(nm: string, link: string): boolean {
  try {
    return !isWithin(fs.realpathSync(nm), fs.realpathSync(link));
  } catch {
    return true;
  }
}

const linkedPackage = (project: string, link: string) =>
  `${path.relative(project, link)} is a link (a workspace package): a type-aware lint reads its sources, outside the project, so it is not cached`;

/** The reports of a type-aware lint of `scope`, from the cache when the project's files are as they were. */
export async function cachedTypedReports(
  cache: ResultCache,
  scope: EslintScope,
  root: string,
  identity: unknown,
  closure: ClosureSpec,
  call: EslintCall,
): Promise<CachedReports> {
  const walk = scanTarget(cache, scope.root);
  // With the file kinds the config's `files` patterns add (`*.es6`).
  const kinds = (await closureOf(cache, closure, root)).kinds ?? [];
  const inputs = listingOf(walk, root, TYPED_INPUTS, kinds).map((rel) => path.join(root, rel));
  let note: string | undefined;
  const run = async () => {
    const r = await call(scope);
    note = r.note;
    return r.result;
  };
  const outside = readsOutside(cache.tree, scope.root, root, walk.files);
  if (outside)
    return { reports: await run(), note, cache: { cached: 0, total: inputs.length, uncached: outside } };
  const outcome = await runWhole<WireFileReport[]>({
    cache,
    kind: "eslint type-aware",
    identity,
    root,
    inputs,
    closure,
    run,
    // A crash of the lint itself (a fatal parse of the config's own making) is not kept.
    keep: (reports) => !reports.some((r) => r.errors?.length),
    encode: (reports, base) => reports.map((r) => ({ ...r, file: relPath(base, r.file) })),
    decode: (stored, base) =>
      (stored as WireFileReport[]).map((r) => ({ ...r, file: path.join(base, r.file) })),
  });
  return {
    reports: outcome.value,
    note,
    cache: {
      cached: outcome.hit ? outcome.total : 0,
      total: outcome.total,
      ...(outcome.uncached && { uncached: outcome.uncached }),
    },
  };
}
