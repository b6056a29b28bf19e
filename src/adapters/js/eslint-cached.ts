/**
 * ESLint's `lint` through the result cache, per file, unless the config gives files type information
 * (typescript-eslint's project service: a file's findings then depend on others). Keyed by ESLint's
 * version and origin, the config and patterns, the content of the project's ESLint configs, package.json
 * and lock files and what is installed (plugins' versions), .gitignore files, the modules the config
 * loaded (its closure, as the worker reports it: the config and what it imports, inside the project or
 * not, plugins in node_modules too, and the files that code read, before and during the run), and each
 * file's content. The file list is ESLint's own: the files of its last whole run, kept
 * while the tree's files of the kinds ESLint lints (its defaults and the config's `files` patterns) stay
 * the same.
 */
import path from "node:path";
import type { ToolContext } from "../../engine/tool.js";
import type { ResultCache } from "../../cache/result-cache.js";
import { runPerFile, type PerFileRun } from "../../cache/per-file.js";
import { keyOf } from "../../cache/hash.js";
import { configIdentity, listingOf, nodeModulesState, relPath, scanTarget } from "../cached-run.js";
import { closureKey, closureOf, kindOfPattern, type Closure, type ClosureSpec } from "../../cache/closure.js";
import { buildId } from "../../cache/build-id.js";
import { cachedTypedReports } from "./eslint-typed-cached.js";
import type { CachedReports, EslintCall } from "./eslint-reports.js";
import { markerOf } from "../cached-findings.js";
import type { EslintScope } from "./eslint-scope.js";
import type { WireConfigInputs, WireFileReport } from "./eslint-wire.js";

/** Files ESLint lints by default, and those of common plugins' languages. */
const ESLINT_LISTED = /\.(?:[cm]?[jt]sx?|vue|svelte|astro)$/;
const ESLINT_CONFIGS =
  /^(?:eslint\.config\.[cm]?[jt]s|package\.json|package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?|\.gitignore|tsconfig(?:\.[\w-]+)?\.json)$/;

const cleanReport = (file: string): WireFileReport => ({
  file,
  messages: [],
  errorCount: 0,
  warningCount: 0,
  fatal: false,
});

const isEmpty = (r: WireFileReport) =>
  r.messages.length === 0 &&
  !r.fatal &&
  !r.errors?.length &&
  !r.corrections?.length &&
  r.output === undefined;

/**
 * Reports of every file ESLint lints in `scope`: per file, or, for a type-aware config, as one whole-program
 * entry (eslint-typed-cached.ts).
 */
export async function cachedEslintReports(
  ctx: ToolContext,
  cache: ResultCache,
  scope: EslintScope,
  target: string,
  call: EslintCall,
  typeAware: (scope: EslintScope, files: string[]) => Promise<boolean>,
  configInputs: (scope: EslintScope, files: string[]) => Promise<WireConfigInputs>,
): Promise<CachedReports | undefined> {
  const root = ctx.allowlist.rootOf(target) ?? scope.root;
  const walk = scanTarget(cache, scope.base);
  const listing = listingOf(walk, root, ESLINT_LISTED);
  const identity = {
    eslint: [
      scope.eslint.version,
      scope.eslint.source,
      scope.eslint.source === "project" ? path.relative(scope.root, scope.eslint.dir) : null,
    ],
    cwd: relPath(root, scope.root),
    configFile: scope.configFile ? relPath(root, scope.configFile) : null,
    patterns: scope.patterns,
    configs: configIdentity(cache, walk, scope.base, root, ESLINT_CONFIGS, scope.watch),
    nodeModules: nodeModulesState(cache, scope.root, root),
  };
  // What the config loaded and the file kinds its `files` patterns add, as the worker reports them; asked
  // again after a run, which may load or read more (a rule reading a file on first use).
  const resolve = async (): Promise<Closure> => {
    const r = await configInputs(scope, sampleFiles(listing.map((f) => path.join(root, f))));
    const kinds = r.patterns?.map(kindOfPattern).filter((k): k is string => k !== undefined);
    return { files: r.modules, kinds: kinds ?? ["*"], ...(r.incomplete && { uncached: r.incomplete }) };
  };
  const closure: ClosureSpec = { id: ["eslint", identity], resolve, after: resolve };
  const aware = await typeAwareness(ctx, cache, identity, closure, root, () => {
    const samples = sampleFiles(listing.map((r) => path.join(root, r)));
    return samples.length ? typeAware(scope, samples) : Promise.resolve(false);
  });
  if (aware) return cachedTypedReports(cache, scope, root, identity, closure, call);
  let note: string | undefined;
  const outcome = await runPerFile<WireFileReport, null>({
    cache,
    kind: "eslint",
    identity,
    closure,
    root,
    files: { listing: (c: Closure) => listingOf(walk, root, ESLINT_LISTED, c.kinds) },
    isEmpty,
    encode: (r, base) => ({ ...r, file: relPath(base, r.file) }),
    decode: (s, file) => ({ ...(s as WireFileReport), file }),
    async run(subset): Promise<PerFileRun<WireFileReport, null>> {
      const patterns = subset ? subset.map((f) => relPath(scope.root, f)) : scope.patterns;
      const r = await call({ ...scope, patterns });
      note = r.note;
      const values = new Map(r.result.map((report) => [report.file, report]));
      return { values, meta: null, files: subset ? undefined : r.result.map((report) => report.file) };
    },
  });
  return {
    reports: outcome.files.map((f) => outcome.values.get(f) ?? cleanReport(f)),
    note,
    cache: markerOf(outcome),
  };
}

/**
 * Whether the config gives files type information: asked of the worker once per config in a server, and
 * remembered in the cache under the config's identity and closure, so a fresh `check` need not start a
 * worker to know (an answer under a closure that cannot be keyed is not kept).
 */
async function typeAwareness(
  ctx: ToolContext,
  cache: ResultCache,
  identity: unknown,
  closure: ClosureSpec,
  root: string,
  ask: () => Promise<boolean>,
): Promise<boolean> {
  const memo = ctx.services.get("eslint-type-aware", () => new Map<string, Promise<boolean>>());
  const memoKey = keyOf(identity);
  let aware = memo.get(memoKey);
  if (!aware) {
    aware = (async () => {
      const parts = closureKey(cache, await closureOf(cache, closure, root), root);
      const key = "parts" in parts ? keyOf("eslint type-aware", buildId(), identity, parts.parts) : undefined;
      const known = key ? cache.getLocal<boolean>(key) : undefined;
      if (typeof known === "boolean") return known;
      const answer = await ask();
      if (key) cache.put(key, answer, { local: true });
      return answer;
    })();
    memo.set(memoKey, aware);
    aware.catch(() => memo.delete(memoKey));
  }
  return aware;
}

/** A file of each extension (at most four): enough to see whether the config is type-aware. */
function sampleFiles(files: readonly string[]): string[] {
  const byExt = new Map<string, string>();
  for (const f of files) if (!byExt.has(path.extname(f))) byExt.set(path.extname(f), f);
  return [...byExt.values()].slice(0, 4);
}
