/**
 * Retained lint traces: `<project root>/.mcp-cache/lint-runs/<trace_id>.json`, each a SARIF log whose
 * `properties["mcp-code-quality/trace"]` records the call. Folders 0700, files 0600, written race-safe
 * (exclusive temp file, no link followed, renamed into place); the oldest are dropped past the count and byte
 * limits. A trace id is a bare name from that folder, nothing else.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { ToolError } from "../errors.js";
import { ensureCacheDir } from "../fix/cache-dir.js";
import { listDirIn, lstatIn, openDirIn, readFileIn, removeFileIn, writeFileIn } from "../paths/safe-fs.js";

export const LINT_RUNS_DIR = "lint-runs";
export const TRACE_PROPERTY = "mcp-code-quality/trace";
const TRACE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** The metadata a trace records. */
export interface TraceMeta {
  trace_id: string;
  created: string;
  /** The tool called and its arguments (paths canonical), minus output and retain. */
  tool: string;
  arguments: Record<string, unknown>;
}

export function lintRunsDir(root: string): string {
  return path.join(root, ".mcp-cache", LINT_RUNS_DIR);
}

/** The trace id in `input`, or invalid_input "not a trace id" for anything path-like. */
export function parseTraceId(input: string): string {
  const id = input.endsWith(".json") ? input.slice(0, -5) : input;
  if (!TRACE_ID.test(id))
    throw new ToolError(
      "invalid_input",
      `not a trace id: ${JSON.stringify(input.slice(0, 200))} (a trace id is a bare file name from .mcp-cache/${LINT_RUNS_DIR}/, as a retained run's trace_id gives it)`,
    );
  return id;
}

/** A new id: sortable by time, then random. */
export function newTraceId(tool: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:.]/g, "");
  return `${stamp}-${tool.replace(/[^A-Za-z0-9]/g, "")}-${randomBytes(4).toString("hex")}`;
}

export interface RetentionLimits {
  maxCount: number;
  maxBytes: number;
}

export interface Retained {
  trace_id: string;
  file: string;
  /** Trace ids dropped to stay within the limits. */
  dropped: string[];
}

/**
 * Writes a trace and prunes the folder to the limits, oldest first (the new one is never dropped). A trace
 * larger than the byte limit alone is refused (invalid_input) and nothing is written.
 */
export async function retainTrace(
  root: string,
  id: string,
  content: string,
  limits: RetentionLimits,
): Promise<Retained> {
  const bytes = Buffer.byteLength(content);
  if (bytes > limits.maxBytes)
    throw new ToolError(
      "invalid_input",
      `the trace (${bytes} bytes) is larger than --trace-max-bytes ${limits.maxBytes}; it was not retained`,
    );
  await ensureCacheDir(root);
  const dir = lintRunsDir(root);
  const opened = openDirIn(root, dir, { create: 0o700 });
  try {
    opened.chmod(0o700);
  } finally {
    opened.close();
  }
  const file = path.join(dir, `${id}.json`);
  writeFileIn(root, file, content, { mode: 0o600, links: "refuse", expect: null });
  return { trace_id: id, file, dropped: prune(root, dir, id, limits) };
}

function prune(root: string, dir: string, keep: string, limits: RetentionLimits): string[] {
  return pruneTraces(root, dir, keep, limits, TRACE_ID);
}

/**
 * Drops the oldest `<id>.json` traces of `dir` (ids matching `pattern`) past the count and byte limits; the
 * one just written (`keep`) is never dropped. Shared by the lint-run and the advice traces.
 */
export function pruneTraces(
  root: string,
  dir: string,
  keep: string,
  limits: RetentionLimits,
  pattern: RegExp,
): string[] {
  const traces: { id: string; size: number; mtime: number }[] = [];
  for (const entry of listDirIn(root, dir)) {
    if (!entry.isFile() || !entry.name.endsWith(".json")) continue;
    const id = entry.name.slice(0, -5);
    if (!pattern.test(id)) continue;
    const st = lstatIn(root, path.join(dir, entry.name));
    if (st?.isFile()) traces.push({ id, size: st.size, mtime: st.mtimeMs });
  }
  // Newest first: by time, then by name (ids start with their time).
  traces.sort(
    (a, b) =>
      Number(b.id === keep) - Number(a.id === keep) ||
      b.mtime - a.mtime ||
      (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
  );
  const dropped: string[] = [];
  let count = 0;
  let bytes = 0;
  let full = false;
  for (const t of traces) {
    // Once one does not fit, every older one goes too: the oldest are dropped first.
    full ||= t.id !== keep && (count + 1 > limits.maxCount || bytes + t.size > limits.maxBytes);
    if (!full) {
      count++;
      bytes += t.size;
    } else {
      removeFileIn(root, path.join(dir, `${t.id}.json`));
      dropped.push(t.id);
    }
  }
  return dropped;
}

/** A trace's text (a link in its place is refused, never followed); invalid_input when missing or too big. */
export function readTrace(root: string, id: string, maxBytes: number): string {
  const file = path.join(lintRunsDir(root), `${id}.json`);
  const st = lstatIn(root, file);
  if (st?.isSymbolicLink())
    throw new ToolError("path_validation", `trace ${id} is a symbolic link; nothing was read through it`, {
      allowed_paths: [root],
    });
  if (!st?.isFile())
    throw new ToolError("invalid_input", `no trace ${id} in ${path.join(root, ".mcp-cache", LINT_RUNS_DIR)}`);
  if (st.size > maxBytes)
    throw new ToolError(
      "invalid_input",
      `trace ${id} is ${st.size} bytes, over --sarif-max-bytes ${maxBytes}`,
    );
  const read = readFileIn(root, file, "refuse");
  if (!read) throw new ToolError("invalid_input", `no trace ${id}`);
  return read.content.toString("utf8");
}
