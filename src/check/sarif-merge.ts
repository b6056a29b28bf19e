/**
 * One SARIF 2.1.0 log out of the tools' own logs: one run per tool (GitHub code scanning no longer
 * combines several runs of one tool in an upload), every location made relative to one base directory
 * (the working directory, as code scanning expects paths from the repository root), rules re-indexed.
 * Pure functions over the logs the tools return with `output: "sarif"`; `mergeSarif` also merges logs that
 * `check --sarif` wrote (shards).
 */
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SARIF_SCHEMA, SRCROOT } from "../findings/sarif.js";
import {
  combineRuns,
  withGithubLimitNotes,
  type ArtifactLocation,
  type SarifLogLike,
  type SarifResult,
  type SarifRunLike,
} from "../findings/sarif-log.js";

export type {
  ArtifactLocation,
  SarifLogLike,
  SarifResult,
  SarifRule,
  SarifRunLike,
} from "../findings/sarif-log.js";

/** The directory %SRCROOT% stands for in a run, if it says. */
function srcRoot(run: SarifRunLike): string | undefined {
  const uri = run.originalUriBaseIds?.[SRCROOT]?.uri;
  return uri?.startsWith("file:") ? fileURLToPath(uri) : undefined;
}

/** The absolute file of an artifact location, or undefined when it names none on disk. */
export function locationFile(run: SarifRunLike, loc: ArtifactLocation | undefined): string | undefined {
  if (!loc?.uri) return undefined;
  try {
    if (loc.uriBaseId === SRCROOT) {
      const root = srcRoot(run);
      return root ? path.join(root, ...loc.uri.split("/").map(decodeURIComponent)) : undefined;
    }
    return loc.uri.startsWith("file:") ? fileURLToPath(loc.uri) : undefined;
  } catch {
    return undefined;
  }
}

/** The absolute file of a result's first location. */
export function resultFile(run: SarifRunLike, result: SarifResult): string | undefined {
  return locationFile(run, result.locations?.[0]?.physicalLocation?.artifactLocation);
}

/** A location for `file` relative to `base` when inside it, else an absolute file: URI. */
function locationFor(file: string, base: string): ArtifactLocation {
  const rel = path.relative(base, file);
  if (rel && !rel.startsWith("..") && !path.isAbsolute(rel))
    return { uri: rel.split(path.sep).map(encodeURIComponent).join("/"), uriBaseId: SRCROOT };
  return { uri: pathToFileURL(file).href };
}

/** The run with every location rewritten against `base` (as %SRCROOT%). */
function rebase(run: SarifRunLike, base: string): SarifRunLike {
  const move = (loc: ArtifactLocation | undefined): ArtifactLocation | undefined => {
    const file = locationFile(run, loc);
    return file ? locationFor(file, base) : loc;
  };
  const results = (run.results ?? []).map((r) => ({
    ...r,
    locations: r.locations?.map((l) =>
      l.physicalLocation?.artifactLocation
        ? {
            ...l,
            physicalLocation: {
              ...l.physicalLocation,
              artifactLocation: move(l.physicalLocation.artifactLocation),
            },
          }
        : l,
    ),
    fixes: r.fixes?.map((f) => ({
      ...f,
      artifactChanges: f.artifactChanges?.map((c) => ({ ...c, artifactLocation: move(c.artifactLocation)! })),
    })),
  }));
  for (const r of results) {
    if (r.locations === undefined) delete r.locations;
    if (r.fixes === undefined) delete r.fixes;
  }
  return {
    ...run,
    results,
    originalUriBaseIds: { [SRCROOT]: { uri: pathToFileURL(`${base}${path.sep}`).href } },
  };
}

/**
 * One log of every run of `logs`: one run per tool and category (combined by the writer's combineRuns),
 * locations relative to `base`, GitHub's upload limits said in the runs that pass them.
 */
export function mergeSarif(logs: readonly SarifLogLike[], base: string): SarifLogLike {
  const runs: SarifRunLike[] = [];
  for (const log of logs) for (const run of log.runs) runs.push(rebase(run, base));
  return withGithubLimitNotes({ $schema: SARIF_SCHEMA, version: "2.1.0", runs: combineRuns(runs) }).log;
}

/** The log with only the results whose file passes `keep` (results without a file are dropped too). */
export function filterSarifResults(log: SarifLogLike, keep: (file: string) => boolean): SarifLogLike {
  return {
    ...log,
    runs: log.runs.map((run) => ({
      ...run,
      results: (run.results ?? []).filter((r) => {
        const file = resultFile(run, r);
        return file !== undefined && keep(file);
      }),
    })),
  };
}

/**
 * The log with each run filed under its project for GitHub code scanning: the category (`automationDetails.id`,
 * `<folder>/`) is the project's folder relative to the working directory, so the alerts of each project of a
 * monorepo are tracked, and closed, on their own. A project at the working directory itself (or a file) is
 * left without one, as before; a run that already has a category keeps it.
 */
export function withProjectCategory(log: SarifLogLike, target: string, cwd: string, isDirectory: boolean) {
  const rel = path.relative(cwd, target);
  if (!isDirectory || !rel || rel.startsWith("..") || path.isAbsolute(rel)) return log;
  const id = `${rel.split(path.sep).join("/")}/`;
  return {
    ...log,
    runs: log.runs.map((run) =>
      run.automationDetails?.id ? run : { ...run, automationDetails: { ...run.automationDetails, id } },
    ),
  };
}
