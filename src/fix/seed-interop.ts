/**
 * Interoperability with the original eslint-typescript MCP server (seed 001) in the same `.mcp-cache/`:
 * our audit lines also carry its fields (runId, cwd, filesWritten absolute, snapshotRef, ...), its lines are
 * read as ours, our committed manifests list its `entries` (blobs hard-linked where it looks for them), and
 * its snapshots are read for a rollback. So a team can switch servers either way and keep trail and rollbacks.
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { CachePaths } from "./cache-dir.js";
import { readFileState, type FileState } from "./file-state.js";
import { fileInRoot, isRunId, snapshotDir, type Manifest, type ManifestEntry } from "./snapshot-layout.js";
import { readFileIn } from "../paths/safe-fs.js";
import type { TxAuditEntry } from "./tx-audit-entry.js";

const SHA256_HEX = /^[0-9a-f]{64}$/;
/** The original names a manual rollback `<undone runId>-rb-<ms>`. */
const SEED_ROLLBACK_ID = /^(.+)-rb-\d+$/;

function insideRoot(root: string, file: string): string | undefined {
  const rel = path.relative(root, path.resolve(root, file));
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : undefined;
}

function rollbackReasonOf(entry: TxAuditEntry): string | undefined {
  if (entry.result !== "rollback" && entry.tool !== "rollback") return undefined;
  if (entry.tool === "rollback") return "manual";
  return /type check/.test(entry.reason ?? "") ? "tsc-verify-failed" : "exception";
}

/**
 * The original's fields for one of our entries (written beside ours). A manual rollback, which we record
 * as a committed transaction of tool "rollback", is `result: "rollback"` with `rollbackReason: "manual"` for
 * the original (so it never takes it for a fix to undo); `tx_result` keeps our result.
 */
export function seedAuditFields(entry: TxAuditEntry): Record<string, unknown> {
  const lockedOut = entry.result === "locked-out";
  const end = Date.parse(entry.timestamp);
  const hasSnapshot = entry.result === "commit" || entry.result === "commit-partial-snapshot";
  const reason = rollbackReasonOf(entry);
  const manual = entry.tool === "rollback" && entry.result.startsWith("commit");
  const fields: Record<string, unknown> = {
    runId: entry.run_id,
    cwd: entry.root,
    filesRequested: Array.isArray(entry.files_requested) ? entry.files_requested : [],
    operation: entry.tool === "rollback" ? "rollback" : "fix",
    lockAcquiredAt: lockedOut ? null : new Date(end - entry.lock_hold_ms).toISOString(),
    lockReleasedAt: lockedOut ? null : entry.timestamp,
    // A fix that was rolled back leaves nothing written, as the original records it.
    filesWritten: entry.result === "rollback" ? [] : entry.files_written.map((f) => path.join(entry.root, f)),
    snapshotRef: hasSnapshot ? path.join(entry.root, ".mcp-cache", "snapshots", entry.run_id) : null,
    durationMs: entry.lock_wait_ms + entry.lock_hold_ms,
  };
  if ((entry.result === "error" || lockedOut) && entry.reason) fields.error = entry.reason;
  if (reason) fields.rollbackReason = reason;
  if (manual) {
    fields.result = "rollback";
    fields.tx_result = entry.result;
  }
  return fields;
}

/** A parsed audit line as our entry: ours (back to our result), or one the original wrote. */
export function fromAuditLine(v: Record<string, unknown>): TxAuditEntry | undefined {
  if (typeof v.run_id === "string" && typeof v.result === "string") {
    return (typeof v.tx_result === "string" ? { ...v, result: v.tx_result } : v) as TxAuditEntry;
  }
  if (typeof v.runId !== "string" || typeof v.result !== "string" || typeof v.cwd !== "string")
    return undefined;
  const root = v.cwd;
  const written = Array.isArray(v.filesWritten) ? v.filesWritten.filter((f) => typeof f === "string") : [];
  const acquired = typeof v.lockAcquiredAt === "string" ? Date.parse(v.lockAcquiredAt) : NaN;
  const released = typeof v.lockReleasedAt === "string" ? Date.parse(v.lockReleasedAt) : NaN;
  const entry: TxAuditEntry = {
    ...v,
    timestamp: typeof v.timestamp === "string" ? v.timestamp : new Date(0).toISOString(),
    run_id: v.runId,
    tool: typeof v.tool === "string" ? v.tool : "unknown",
    root,
    result: v.result as TxAuditEntry["result"],
    files_written: written.flatMap((f) => insideRoot(root, f) ?? []),
    lock_wait_ms: 0,
    lock_hold_ms:
      Number.isFinite(acquired) && Number.isFinite(released)
        ? released - acquired
        : typeof v.durationMs === "number"
          ? v.durationMs
          : 0,
    seed_entry: true,
  };
  const why = [v.rollbackReason, v.error].filter((x) => typeof x === "string");
  if (why.length) entry.reason = why.join(": ");
  const undone = SEED_ROLLBACK_ID.exec(v.runId);
  if (v.tool === "rollback" && undone) entry.rolled_back = [undone[1] as string];
  return entry;
}

/** The original's view of a committed manifest: `runId`, `cwd`, `entries` (absolute paths, blob names). */
export function seedManifestFields(paths: CachePaths, manifest: Manifest): Record<string, unknown> {
  if (!manifest.committed) return {};
  return {
    runId: manifest.run_id,
    cwd: paths.root,
    createdAt: manifest.created,
    truncated: false,
    entries: manifest.files
      .filter((f) => f.before.sha256 !== null)
      .map((f) => ({
        absPath: path.join(paths.root, f.path),
        sha256: f.before.sha256,
        size: f.before.size,
        mtimeMs: 0,
      })),
  };
}

/** Hard links `<snapshot>/<sha256>` to our `objects/<sha256>`: where the original's restore reads blobs. */
export async function linkSeedBlobs(paths: CachePaths, manifest: Manifest): Promise<void> {
  const dir = snapshotDir(paths, manifest.run_id);
  for (const f of manifest.files) {
    const sha = f.before.sha256;
    if (sha === null || !SHA256_HEX.test(sha)) continue;
    await fs.link(path.join(dir, "objects", sha), path.join(dir, sha)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
    });
  }
}

/**
 * The folder of the original's snapshot of a transaction: its `snapshotRef`, which names
 * `<root>/.mcp-cache/snapshots/<snapshot id>` (an id of its own, not the transaction's runId); only a plain
 * run id directly under our snapshots folder is taken, whatever the audit line says.
 */
function seedSnapshotId(paths: CachePaths, entry: TxAuditEntry): string | undefined {
  const ref = entry.snapshotRef;
  if (typeof ref !== "string" || !path.isAbsolute(ref)) return undefined;
  const id = path.basename(ref);
  return path.dirname(ref) === paths.snapshots && isRunId(id) ? id : undefined;
}

interface SeedSnapshotEntry {
  absPath?: unknown;
  sha256?: unknown;
  size?: unknown;
  mtimeMs?: unknown;
}

/** The `entries` of the original's snapshot of `entry` (its snapshotRef), or undefined. */
function seedEntries(paths: CachePaths, entry: TxAuditEntry): SeedSnapshotEntry[] | undefined {
  const snapshotId = seedSnapshotId(paths, entry);
  if (!snapshotId) return undefined;
  try {
    const read = readFileIn(paths.root, path.join(snapshotDir(paths, snapshotId), "manifest.json"), "refuse");
    if (!read) return undefined;
    const raw = JSON.parse(read.content.toString("utf8")) as { entries?: unknown };
    return Array.isArray(raw.entries) ? (raw.entries as SeedSnapshotEntry[]) : undefined;
  } catch {
    return undefined;
  }
}

const releasedAt = (e: TxAuditEntry) =>
  typeof e.lockReleasedAt === "string" ? Date.parse(e.lockReleasedAt) : NaN;

/** mtimes are compared with this slack: a file system may keep them in whole seconds. */
const MTIME_SLACK_MS = 1000;

/**
 * Until when `rel` is known to have held what the original's transaction `entry` left, though the original
 * records no after-state: from its lock's release, and on through each later transaction of the original
 * that rolled back (it rewrites every file of its snapshot, so mtimes alone would say "changed"), as long as
 * that transaction's snapshot found the file unmodified since (its manifest keeps each file's mtime) and so
 * put back exactly what `entry` left. NaN when unknown.
 */
function unchangedUntil(paths: CachePaths, entry: TxAuditEntry, rel: string, later: TxAuditEntry[]): number {
  let since = releasedAt(entry);
  for (const next of later) {
    if (!Number.isFinite(since)) break;
    if (next.seed_entry !== true || next.operation !== "fix") return since;
    const seen = seedEntries(paths, next)?.find((e) => e.absPath === path.join(paths.root, rel));
    if (!seen || typeof seen.mtimeMs !== "number" || seen.mtimeMs > since + MTIME_SLACK_MS) return since;
    // Snapshotted unmodified; a rollback restored that very content when it released its lock.
    if (next.result !== "rollback") return since;
    since = releasedAt(next);
  }
  return since;
}

/**
 * A snapshot the original wrote (`<snapshotRef>/manifest.json` with `entries`, blobs beside it) as our
 * manifest, its `run_id` the snapshot's folder. The original snapshots the whole `src/` tree and leaves out
 * of `filesWritten` files its fix changed but left with problems, so its entries count when the transaction
 * wrote them or they differ from the snapshot now. It records no after-state: a file last modified by the
 * time the file is known to hold what the transaction left (its lock's release, or a later rollback of the
 * original's that put that content back: `unchangedUntil`) counts as untouched since (restored); one
 * modified later gets no after-state, so it is a conflict and left alone. `entries` is the whole audit trail,
 * oldest first.
 */
export async function readSeedManifest(
  paths: CachePaths,
  entry: TxAuditEntry,
  entries: readonly TxAuditEntry[] = [],
): Promise<Manifest | undefined> {
  if (entry.seed_entry !== true) return undefined;
  const snapshotId = seedSnapshotId(paths, entry);
  const raw = seedEntries(paths, entry);
  if (!snapshotId || !raw) return undefined;
  const written = new Set(entry.files_written);
  const later = entries
    .filter((e) => e !== entry && Date.parse(e.timestamp) > Date.parse(entry.timestamp))
    .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
  const files: ManifestEntry[] = [];
  for (const e of raw) {
    if (typeof e.absPath !== "string" || typeof e.sha256 !== "string" || !SHA256_HEX.test(e.sha256)) continue;
    const rel = insideRoot(paths.root, e.absPath);
    if (!rel) continue;
    let target: string;
    try {
      target = fileInRoot(paths, rel);
    } catch {
      continue;
    }
    if (!written.has(rel) && (await readFileState(paths.root, target)).state.sha256 === e.sha256) continue;
    const st = await fs.stat(target).catch(() => undefined);
    const mode = st ? st.mode & 0o7777 : 0o644;
    const before: FileState = { sha256: e.sha256, mode, size: typeof e.size === "number" ? e.size : 0 };
    const item: ManifestEntry = { path: rel, before, flat: true };
    if (st && st.mtimeMs <= unchangedUntil(paths, entry, rel, later) + MTIME_SLACK_MS) {
      item.after = (await readFileState(paths.root, target)).state;
    }
    files.push(item);
  }
  return {
    version: 1,
    run_id: snapshotId,
    tool: entry.tool,
    root: paths.root,
    created: entry.timestamp,
    committed: true,
    files,
  };
}
