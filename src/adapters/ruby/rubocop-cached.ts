/**
 * RuboCop inspections (lint, the rubocop toolset's inspection) through the result cache, per file, as
 * RuboCop's own result cache keys them: RuboCop's and Ruby's versions, the options (only/except,
 * contextual, corrections, --config), the content of the .rubocop.yml files, Gemfile and Gemfile.lock, and
 * each file's content. The file list is RuboCop's own (its TargetFinder, asked in the warm worker), kept
 * while the tree's files stay the same. A cached result needs no worker: nothing Ruby runs on a full hit.
 */
import fs from "node:fs";
import path from "node:path";
import type { ToolContext } from "../../engine/tool.js";
import type { ResultCache } from "../../cache/result-cache.js";
import { keyOf, sha256 } from "../../cache/hash.js";
import { runPerFile } from "../../cache/per-file.js";
import { readSourceText, readSourceTexts } from "../../paths/safe-fs.js";
import { findExecutable } from "../../exec/which.js";
import {
  configFiles,
  configIdentity,
  executableIdentity,
  listingOf,
  relPath,
  scanTarget,
} from "../cached-run.js";
import { rubocopClosure } from "./rubocop-closure.js";
import type { RubocopFileReport, RubocopJob, RubocopRunResult, WorkerFileRun } from "./rubocop-types.js";
import { rubocopRequest, rubocopRuntime, rubyProjectRoot } from "./rubocop-worker.js";
import { packagePath } from "../../package-root.js";
import { markerOf } from "../cached-findings.js";

/** RuboCop's default excludes (AllCops Exclude) that the project scan skips. */
const RUBOCOP_SKIPPED = new Set(["vendor", "tmp"]);
const RUBOCOP_CONFIGS =
  /^(?:\.rubocop[\w.-]*\.yml|Gemfile|Gemfile\.lock|gems\.rb|gems\.locked|\.ruby-version)$/;

export interface RubocopHooks {
  listFiles(): Promise<string[]>;
  inspect(
    files: { path: string; source: string; on_disk?: boolean }[],
  ): Promise<{ runs: WorkerFileRun[]; notes: string[] }>;
  report(file: string, run: WorkerFileRun, source: () => string): RubocopFileReport;
}

let workerScriptsHash: string | undefined;
/** The worker's Ruby files: they shape every report. */
function workerScripts(): string {
  if (workerScriptsHash) return workerScriptsHash;
  const dir = packagePath("ruby");
  const names = fs
    .readdirSync(dir)
    .filter((n) => n.endsWith(".rb"))
    .sort();
  workerScriptsHash = sha256(
    names.map((n) => `${n}:${sha256(fs.readFileSync(path.join(dir, n)))}`).join("\n"),
  );
  return workerScriptsHash;
}

/**
 * RuboCop's and Ruby's versions, as the worker reports them, remembered in the local cache by the
 * toolchain's fingerprint (ruby and rubocop executables, gem environment, Gemfile.lock), so that a fresh
 * server with a warm cache starts no Ruby at all.
 */
async function rubocopVersion(
  ctx: ToolContext,
  cache: ResultCache,
  target: string,
  root: string,
  command: string,
) {
  const lock = path.join(root, "Gemfile.lock");
  const fingerprint = keyOf(
    "rubocop-version",
    executableIdentity(findExecutable("ruby"), undefined),
    executableIdentity(findExecutable("rubocop"), undefined),
    executableIdentity(findExecutable("bundle"), undefined),
    [process.env.GEM_HOME ?? null, process.env.GEM_PATH ?? null, process.env.BUNDLE_GEMFILE ?? null],
    fs.existsSync(lock) ? (cache.hashes.hashOf(lock) ?? null) : null,
  );
  const known = cache.getLocal<{ version: string; ruby: string }>(fingerprint);
  if (known) return known;
  const { result } = await rubocopRequest<{ version: string; ruby: string }>(
    ctx,
    target,
    "version",
    {},
    command,
  );
  cache.put(fingerprint, result, { local: true });
  return result;
}

export async function cachedRubocopRun(
  ctx: ToolContext,
  cache: ResultCache,
  job: RubocopJob,
  command: string,
  hooks: RubocopHooks,
): Promise<RubocopRunResult> {
  const allowedRoot = ctx.allowlist.rootOf(job.target) ?? job.target;
  const root = rubyProjectRoot(job.target, allowedRoot);
  const runtimeNote = rubocopRuntime(root, command).note;
  const version = await rubocopVersion(ctx, cache, job.target, root, command);
  const walk = scanTarget(cache, job.target, RUBOCOP_SKIPPED);
  const rules = job.options?.rules;
  let workerNote: string | undefined;
  const identity = {
    rubocop: version,
    worker: workerScripts(),
    only: rules?.only ?? null,
    except: rules?.except ?? null,
    contextual: job.options?.contextual === true,
    corrections: job.corrections !== false,
    config: job.config ? relPath(allowedRoot, job.config) : null,
    root: relPath(allowedRoot, root),
    configs: configIdentity(cache, walk, job.target, allowedRoot, RUBOCOP_CONFIGS, [job.config]),
  };
  const configs = configFiles(cache, walk, job.target, allowedRoot, RUBOCOP_CONFIGS, [job.config]);
  const outcome = await runPerFile<WorkerFileRun, null>({
    cache,
    kind: "rubocop inspect",
    identity,
    // What the configs inherit from (wherever it lies) and the custom cops they require.
    closure: { id: ["rubocop", identity], resolve: () => Promise.resolve(rubocopClosure(cache, configs)) },
    root: allowedRoot,
    // The list is RuboCop's targets filtered by `changed` and `files` (jobFiles): both are part of its key,
    // or a call's filtered list answered a later whole-project call (rack: 1 file of 107).
    files: {
      listing: [
        listingOf(walk, allowedRoot, /./),
        job.options?.changedFiles ?? null,
        job.options?.files ? [...job.options.files].sort() : null,
      ],
    },
    isEmpty: () => false,
    encode: (v) => v,
    decode: (s) => s as WorkerFileRun,
    listFiles: () => hooks.listFiles(),
    async run(subset) {
      const files = subset ? [...subset] : await hooks.listFiles();
      const values = new Map<string, WorkerFileRun>();
      if (files.length === 0) return { values, meta: null, files };
      const { runs, notes } = await hooks.inspect(
        // On disk, as the CLI inspects them (see sourcesOf in rubocop-run.ts).
        readSourceTexts(ctx.allowlist, files).map((source, i) => ({
          path: files[i] as string,
          source,
          on_disk: true,
        })),
      );
      workerNote = notes[1];
      runs.forEach((r, i) => values.set(files[i] as string, r));
      return { values, meta: null, files: subset ? undefined : files };
    },
  });
  const reports = outcome.files.map((file) => {
    const run = outcome.values.get(file) as WorkerFileRun;
    return hooks.report(file, run, () => readSourceText(ctx.allowlist, file));
  });
  return {
    files: reports,
    notes: [runtimeNote, ...(workerNote ? [workerNote] : [])],
    command,
    cache: markerOf(outcome),
    version: version.version,
  };
}
