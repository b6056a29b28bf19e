/**
 * The embedded ruff through the result cache, as the CLI goes through it (ruff-cached.ts): per file, keyed
 * by the embedded build (its version and wasm module), the resolved settings and the config files they come
 * from, the package markers that decide a file's first-party modules, and each file's content. The file
 * list is the server's own discovery (the embedded ruff's, made fresh on each call from the shared project
 * scan); files the cache lacks are linted or formatted alone. Writes and inline code are never cached.
 */
import fs from "node:fs";
import path from "node:path";
import type { ResultCache } from "../../cache/result-cache.js";
import { runPerFile } from "../../cache/per-file.js";
import type { TreeWalk } from "../../paths/tree-scan.js";
import { byPosition, type Finding } from "../../findings/model.js";
import { isWithin } from "../../paths/allowlist.js";
import { configIdentity, relPath, scanTarget } from "../cached-run.js";
import { byFile, joinFindings, runFindingsPerFile, type CacheMarker, markerOf } from "../cached-findings.js";
import {
  embeddedRuffBuild,
  embeddedScope,
  type EmbeddedCallOptions,
  type EmbeddedRuff,
} from "./ruff-embedded.js";
import { ruffSettingsFor, type RuffSettings } from "./ruff-settings.js";
import { RUFF_CONFIGS, RUFF_SKIPPED } from "./ruff-cached.js";

export interface EmbeddedRuffJob {
  ruff: EmbeddedRuff;
  call: EmbeddedCallOptions;
  /** The request's path, and the files under it that the embedded ruff goes through (its order). */
  target: string;
  files: readonly string[];
  root: string;
  /** The config file given, if any. */
  config?: string;
  settings: RuffSettings;
  /** Nested configs' settings that some of the files get instead (ruff's hierarchical discovery). */
  nested: RuffSettings[];
}

/** The job of a cached embedded run on `target`: the settings and files the uncached run would use (embeddedScope). */
export function embeddedRuffJob(
  ruff: EmbeddedRuff,
  call: EmbeddedCallOptions,
  where: { target: string; root: string; config?: string },
  only?: readonly string[],
): EmbeddedRuffJob {
  const { settings, files } = embeddedScope(where.target, where.root, where.config, only, call.cwd);
  return {
    ruff,
    call,
    target: where.target,
    files,
    root: where.root,
    config: where.config,
    settings,
    nested: nestedSettings(files, where.root, settings),
  };
}

/** The settings of nested configs that some of `files` get instead of `base` (hierarchical discovery). */
function nestedSettings(files: readonly string[], root: string, base: RuffSettings): RuffSettings[] {
  const found = new Set<RuffSettings>();
  for (const file of files) {
    const own = ruffSettingsFor(file, root, base);
    if (own !== base) found.add(own);
  }
  return [...found];
}

const PACKAGE_MARKER = /^__init__\.pyi?$/;

/** The settings with absolute paths inside the root made relative to it, so checkouts elsewhere share keys. */
function portableSettings(settings: RuffSettings, root: string): unknown {
  return JSON.parse(
    JSON.stringify(settings, (_key, value: unknown) =>
      typeof value === "string" && path.isAbsolute(value) && isWithin(root, value)
        ? `<root>/${relPath(root, value)}`
        : value,
    ),
  );
}

/**
 * The `__init__.py(i)` files that decide which package a file is in (its first-party modules, the
 * implicit-namespace-package rule): those under the target and in the folders above it up to the root.
 */
function packageMarkers(walk: TreeWalk, target: string, root: string): string[] {
  const found = walk.files.filter((f) => PACKAGE_MARKER.test(path.basename(f)));
  for (let dir = path.dirname(target); isWithin(root, dir); dir = path.dirname(dir)) {
    for (const name of ["__init__.py", "__init__.pyi"])
      if (fs.existsSync(path.join(dir, name))) found.push(path.join(dir, name));
    if (dir === root || dir === path.dirname(dir)) break;
  }
  return [...new Set(found)].map((f) => relPath(root, f)).sort();
}

/** Everything besides a file's content that its embedded lint or format result depends on. */
function embeddedIdentity(cache: ResultCache, job: EmbeddedRuffJob, kind: string): unknown {
  const walk = scanTarget(cache, job.target, RUFF_SKIPPED);
  return {
    ruff: embeddedRuffBuild(),
    kind,
    target: relPath(job.root, job.target),
    // Every config read, nested ones and the files they extend (which may lie outside the target) included.
    configs: configIdentity(cache, walk, job.target, job.root, RUFF_CONFIGS, [
      job.config,
      ...[job.settings, ...job.nested].flatMap((s) => [s.source, ...(s.chain ?? [])]),
    ]),
    settings: portableSettings(job.settings, job.root),
    nested: job.nested.map((s) => portableSettings(s, job.root)),
    packages: packageMarkers(walk, job.target, job.root),
  };
}

/** The embedded lint of the job's files: its findings (sorted as uncached) and the cache marker. */
export async function cachedEmbeddedLint(
  cache: ResultCache,
  job: EmbeddedRuffJob,
): Promise<{ findings: Finding[]; cache: CacheMarker }> {
  const outcome = await runFindingsPerFile<null>({
    cache,
    kind: "ruff check (embedded)",
    identity: embeddedIdentity(cache, job, "check"),
    root: job.root,
    files: job.files,
    async run(subset) {
      const findings = await job.ruff.lintFiles(
        job.settings,
        job.root,
        subset ?? job.files,
        job.call,
        job.target,
      );
      return { values: byFile(findings), meta: null };
    },
  });
  // By file, line, column, as the uncached run sorts them (a stable sort: each file's order is kept).
  const findings = joinFindings(outcome).sort(byPosition);
  return { findings, cache: markerOf(outcome) };
}

/** The embedded `format --check` (no diff) of the job's files: those that would change, in its order. */
export async function cachedEmbeddedFormatCheck(
  cache: ResultCache,
  job: EmbeddedRuffJob,
): Promise<{ unformatted: string[]; cache: CacheMarker }> {
  const outcome = await runPerFile<boolean, null>({
    cache,
    kind: "ruff format --check (embedded)",
    identity: embeddedIdentity(cache, job, "format"),
    root: job.root,
    files: job.files,
    isEmpty: (v) => !v,
    encode: () => 1,
    decode: () => true,
    async run(subset) {
      const changed = await job.ruff.formatFiles(
        job.settings,
        job.root,
        subset ?? job.files,
        job.call,
        job.target,
      );
      return { values: new Map(changed.map((c) => [c.file, true])), meta: null };
    },
  });
  return {
    unformatted: outcome.files.filter((f) => outcome.values.get(f)),
    cache: markerOf(outcome),
  };
}
