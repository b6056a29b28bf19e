/**
 * Where a transaction's snapshot lives and what its manifest says: the names both the snapshots and the
 * seed 001 interoperability read (seed-interop.ts), below both, so neither imports the other.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import { isWithin } from "../paths/allowlist.js";
import type { CachePaths } from "./cache-dir.js";
import type { FileState } from "./file-state.js";

export interface ManifestEntry {
  /** Path relative to the project root. */
  path: string;
  before: FileState;
  /** The state the transaction left, recorded at commit (what a later rollback compares against). */
  after?: FileState;
  /** The object is `<snapshot>/<sha256>`, not under objects/ (a snapshot the original seed 001 server took). */
  flat?: boolean;
}

export interface Manifest {
  version: 1;
  run_id: string;
  tool: string;
  root: string;
  created: string;
  committed: boolean;
  files: ManifestEntry[];
}

/** What `newRunId` makes (e.g. 20260101T120000Z-0a1b2c3d): a single path component, never `..`. */
const RUN_ID = /^[0-9A-Za-z][0-9A-Za-z_-]{0,63}$/;

export function isRunId(value: unknown): value is string {
  return typeof value === "string" && RUN_ID.test(value);
}

/** Throws unless `runId` is a plain run id: state files (journal, audit, manifest) name it, and may be tampered with. */
export function checkRunId(runId: string): string {
  if (!isRunId(runId)) throw new Error(`not a run id: ${JSON.stringify(runId)}`);
  return runId;
}

export function snapshotDir(paths: CachePaths, runId: string): string {
  return path.join(paths.snapshots, checkRunId(runId));
}

/**
 * The absolute file a root-relative manifest path denotes, or an Error when it (or, through a symlink, its
 * nearest existing ancestor directory) lies outside the root: restores never write beyond the project.
 */
export function fileInRoot(paths: CachePaths, relative: string): string {
  if (typeof relative !== "string" || relative === "" || path.isAbsolute(relative))
    throw new Error(`not a path inside the project: ${JSON.stringify(relative)}`);
  const target = path.resolve(paths.root, relative);
  if (target === paths.root || !isWithin(paths.root, target))
    throw new Error(`${relative} is outside the project root ${paths.root}`);
  let dir = path.dirname(target);
  while (dir !== paths.root && isWithin(paths.root, dir)) {
    let real: string | undefined;
    try {
      real = realpathSync.native(dir);
    } catch {
      dir = path.dirname(dir);
      continue;
    }
    if (!isWithin(paths.root, real))
      throw new Error(`${relative} leads outside the project root through a link`);
    break;
  }
  return target;
}
