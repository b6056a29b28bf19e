/**
 * Snapshots: content-addressed copies of the files a fix may touch, under
 * `.mcp-cache/snapshots/<runId>/objects/<sha256>`, with `manifest.json` naming each file's state before
 * (and, once committed, after) the transaction. Restores are byte for byte, mode included.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../errors.js";
import {
  createFileIn,
  listDirIn,
  lstatIn,
  openDirIn,
  readFileIn,
  removeFileIn,
  removeTreeIn,
  writeFileIn,
} from "../paths/safe-fs.js";
import type { CachePaths } from "./cache-dir.js";
import { readFileState, restoredMode, sha256, type FileState } from "./file-state.js";
import { linkSeedBlobs, seedManifestFields } from "./seed-interop.js";
import {
  checkRunId,
  fileInRoot,
  isRunId,
  snapshotDir,
  type Manifest,
  type ManifestEntry,
} from "./snapshot-layout.js";

export { checkRunId, fileInRoot, isRunId, snapshotDir, type Manifest, type ManifestEntry };

export type SnapshotOutcome =
  | { taken: true; manifest: Manifest; bytes: number }
  | { taken: false; bytes: number; states: Map<string, FileState> };

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A manifest as read from disk is only trusted when every name in it stays inside the project. */
function validManifest(paths: CachePaths, runId: string, m: Manifest): boolean {
  if (typeof m !== "object" || m === null || m.run_id !== runId || !Array.isArray(m.files)) return false;
  return m.files.every((e) => {
    try {
      fileInRoot(paths, e.path);
    } catch {
      return false;
    }
    const hashOk = (s: FileState | undefined) =>
      s === undefined || s.sha256 === null || (typeof s.sha256 === "string" && SHA256_HEX.test(s.sha256));
    return typeof e.before === "object" && e.before !== null && hashOk(e.before) && hashOk(e.after);
  });
}

export async function writeManifest(paths: CachePaths, manifest: Manifest): Promise<void> {
  writeFileIn(
    paths.root,
    path.join(snapshotDir(paths, manifest.run_id), "manifest.json"),
    JSON.stringify({ ...manifest, ...seedManifestFields(paths, manifest) }, null, 1),
    { mode: 0o600, links: "refuse" },
  );
}

/** The manifest of a run, read without following links (a snapshot folder linked elsewhere is not one). */
export async function readManifest(paths: CachePaths, runId: string): Promise<Manifest | undefined> {
  try {
    const read = readFileIn(paths.root, path.join(snapshotDir(paths, runId), "manifest.json"), "refuse");
    if (!read) return undefined;
    const manifest = JSON.parse(read.content.toString("utf8")) as Manifest;
    return validManifest(paths, runId, manifest) ? manifest : undefined;
  } catch {
    return undefined;
  }
}

/** Sum of the sizes of the files that exist. */
export async function totalBytes(files: readonly string[]): Promise<number> {
  let bytes = 0;
  for (const f of files)
    bytes += await fs.stat(f).then(
      (s) => (s.isFile() ? s.size : 0),
      () => 0,
    );
  return bytes;
}

/**
 * Copies `files` (absolute, inside paths.root) into a new snapshot, or skips it when they hold more
 * than `maxBytes` (then only their states are recorded, to tell later which were written).
 */
export async function takeSnapshot(
  paths: CachePaths,
  runId: string,
  tool: string,
  files: readonly string[],
  maxBytes: number,
): Promise<SnapshotOutcome> {
  const bytes = await totalBytes(files);
  if (bytes > maxBytes) {
    const states = new Map<string, FileState>();
    for (const f of files) states.set(f, (await readFileState(paths.root, f)).state);
    return { taken: false, bytes, states };
  }
  const dir = snapshotDir(paths, runId);
  const objects = path.join(dir, "objects");
  openDirIn(paths.root, objects, { create: 0o700 }).close();
  const entries: ManifestEntry[] = [];
  for (const file of files) {
    const { state, content } = await readFileState(paths.root, file);
    // Content-addressed and created exclusively: an object already there under its hash is the same bytes
    // (restores check the hash).
    if (content && state.sha256) createFileIn(paths.root, path.join(objects, state.sha256), content, 0o600);
    entries.push({ path: path.relative(paths.root, file), before: state });
  }
  const manifest: Manifest = {
    version: 1,
    run_id: runId,
    tool,
    root: paths.root,
    created: new Date().toISOString(),
    committed: false,
    files: entries,
  };
  await writeManifest(paths, manifest);
  return { taken: true, manifest, bytes };
}

/** Keeps only the written entries (with their after states) and drops objects nothing refers to. */
export async function commitSnapshot(
  paths: CachePaths,
  manifest: Manifest,
  after: ReadonlyMap<string, FileState>,
): Promise<Manifest> {
  const files = manifest.files
    .filter((e) => after.has(e.path))
    .map((e) => ({ ...e, after: after.get(e.path) as FileState }));
  const committed: Manifest = { ...manifest, committed: true, files };
  if (files.length === 0) {
    await removeSnapshot(paths, manifest.run_id);
    return committed;
  }
  await writeManifest(paths, committed);
  await linkSeedBlobs(paths, committed);
  const keep = new Set(files.map((e) => e.before.sha256));
  const objects = path.join(snapshotDir(paths, manifest.run_id), "objects");
  for (const { name } of listDirIn(paths.root, objects))
    if (!keep.has(name)) removeFileIn(paths.root, path.join(objects, name));
  return committed;
}

/** Removes a run's snapshot folder (a link in its place is removed, never followed). */
export async function removeSnapshot(paths: CachePaths, runId: string): Promise<void> {
  removeTreeIn(paths.root, snapshotDir(paths, runId));
}

/**
 * Puts one file back to its `before` state: the stored bytes written to an exclusive temp file with an
 * unpredictable name beside it and renamed over it (see safe-fs), with the recorded permission bits (never
 * adding a setuid, setgid or sticky bit the file does not have now); a file that did not exist before is
 * removed. Throws when the object is missing or does not match its hash.
 *
 * `expect` is what the caller found in the file when it decided to restore it (its bytes; null: absent).
 * The file is replaced only while it still holds exactly that, compared just before the rename in one
 * synchronous step, so a stall between the decision and the write (an event loop or a process stopped,
 * however long) never puts the snapshot over what another writer wrote meanwhile: the answer is then
 * `"changed"` and the file is left as it is.
 *
 * A folder of the file that is gone now is re-created only with `recreateFolders` (an explicit, forced
 * rollback). An automatic restore answers `"folder_gone"` instead: a fix never removes folders, so someone
 * else moved or removed it, and re-creating it would write a folder nobody asked for.
 */
export async function restoreEntry(
  paths: CachePaths,
  runId: string,
  entry: ManifestEntry,
  options: { recreateFolders?: boolean; expect?: Buffer | null } = {},
): Promise<"restored" | "folder_gone" | "changed"> {
  const target = fileInRoot(paths, entry.path);
  try {
    if (entry.before.sha256 === null) {
      if (options.expect === null) return "restored";
      removeFileIn(paths.root, target, options.expect ? { expect: options.expect } : {});
      return "restored";
    }
    const object = objectPath(paths, runId, entry, entry.before.sha256);
    const content = readFileIn(paths.root, object, "refuse")?.content;
    if (!content) throw new Error(`snapshot object of ${entry.path} is missing`);
    if (sha256(content) !== entry.before.sha256)
      throw new Error(`snapshot object of ${entry.path} is corrupt`);
    const current = lstatIn(paths.root, target);
    const mode = restoredMode(entry.before.mode, current?.isFile() ? current.mode : undefined);
    writeFileIn(paths.root, target, content, {
      mode,
      links: "replace",
      ...(options.expect !== undefined ? { expect: options.expect } : {}),
      ...(options.recreateFolders ? { createDirs: 0o777 } : {}),
    });
  } catch (err) {
    if (err instanceof ToolError && err.errorType === "locked") return "changed";
    if (!options.recreateFolders && (err as NodeJS.ErrnoException).code === "ENOENT") return "folder_gone";
    throw err;
  }
  return "restored";
}

export async function hasObject(paths: CachePaths, runId: string, entry: ManifestEntry): Promise<boolean> {
  if (entry.before.sha256 === null) return true;
  try {
    return lstatIn(paths.root, objectPath(paths, runId, entry, entry.before.sha256))?.isFile() ?? false;
  } catch {
    return false;
  }
}

function objectPath(paths: CachePaths, runId: string, entry: ManifestEntry, sha: string): string {
  return path.join(snapshotDir(paths, runId), ...(entry.flat ? [] : ["objects"]), sha);
}
