/**
 * What `check` writes: the SARIF file (`--sarif FILE`) and the JSON on stdout (`--json`), at any size.
 * Both are serialized piece by piece (src/findings/json-chunks.ts). The SARIF file is never written through a
 * symbolic link: inside the working directory it is reached from there without following any link, elsewhere
 * from its folder as named, and in both cases written to an exclusive temp file renamed into place (the
 * server's own writes, src/paths/safe-fs.ts). GitHub's upload limits are said on stderr and in the log.
 */
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { isWithin } from "../paths/allowlist.js";
import { writeFileIn } from "../paths/safe-fs.js";
import { jsonChunks } from "../findings/json-chunks.js";
import {
  GITHUB_LIMITS,
  limitResultsPerRun,
  withGithubLimitNotes,
  withLimitNotes,
  type LimitNote,
  type SarifLogLike,
} from "../findings/sarif-log.js";
import { relativeTo } from "../paths/fast-relative.js";

/** A stream check writes to (process.stdout, or a test's sink). */
export interface OutputStream {
  write(chunk: string): boolean;
  once?(event: "drain" | "close" | "error", listener: () => void): unknown;
  removeListener?(event: "drain" | "close" | "error", listener: () => void): unknown;
  /** A reader that went away (`check --json | head`): nothing more is written. */
  destroyed?: boolean;
}

/** Writes the text; resolves once the stream has taken it (at once, or when it drains), or has gone away. */
export function writeText(stream: OutputStream, text: string): Promise<void> {
  if (stream.destroyed || stream.write(text) || !stream.once) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      for (const e of ["drain", "close", "error"] as const) stream.removeListener?.(e, done);
      resolve();
    };
    for (const e of ["drain", "close", "error"] as const) stream.once!(e, done);
  });
}

/** Writes `value` as JSON, waiting for the stream to drain whenever it asks to (a slow pipe gets every byte). */
export async function writeJson(stream: OutputStream, value: unknown): Promise<void> {
  for (const chunk of jsonChunks(value)) {
    if (stream.destroyed) return;
    await writeText(stream, chunk);
  }
  await writeText(stream, "\n");
}

/** Why `file` cannot be check's output (a symbolic link, a folder), or undefined when it can. */
export function outputPathProblem(file: string, cwd: string): string | undefined {
  const root = rootFor(file, cwd);
  // Every component from the root down, the file itself included.
  const parts = path.relative(root, file).split(path.sep).filter(Boolean);
  let at = root;
  for (const [i, part] of parts.entries()) {
    at = path.join(at, part);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(at);
    } catch {
      return i === parts.length - 1 ? undefined : `${path.dirname(file)}: no such folder`;
    }
    if (st.isSymbolicLink())
      return `${at} is a symbolic link: check does not write through links (remove it, or name another file)`;
    if (i === parts.length - 1 && !st.isFile()) return `${file} is not a regular file`;
  }
  return undefined;
}

/** The folder writes are reached from: the working directory when the file is inside it, else its own folder. */
function rootFor(file: string, cwd: string): string {
  return isWithin(cwd, file) && file !== cwd ? cwd : path.dirname(file);
}

/** Bytes of `log` gzip-compressed (as upload-sarif sends it), measured without holding the text. */
async function gzipBytes(log: SarifLogLike): Promise<number> {
  const gzip = zlib.createGzip();
  let bytes = 0;
  gzip.on("data", (b: Buffer) => (bytes += b.length));
  const done = once(gzip, "end");
  for (const chunk of jsonChunks(log)) if (!gzip.write(chunk)) await once(gzip, "drain");
  gzip.end("\n");
  await done;
  return bytes;
}

export interface SarifOutputOptions {
  cwd: string;
  /** --sarif-max-results: at most this many results per run, the most severe kept. */
  maxResults?: number;
  /** Where the limits and cuts are said. */
  warn(text: string): void;
}

export interface SarifOutputReport {
  results: number;
  bytes: number;
  notes: LimitNote[];
}

/**
 * The root a write starts from and the file under it: the working directory when the file is inside it;
 * else its folder as it really is (the user named it; only the file itself is never followed).
 */
function anchored(file: string, cwd: string): { root: string; file: string } {
  if (rootFor(file, cwd) === cwd) return { root: cwd, file };
  const root = fs.realpathSync(path.dirname(file));
  return { root, file: path.join(root, path.basename(file)) };
}

/**
 * Writes one of check's output files (--sarif, --html) race-safe: an exclusive temp file beside it, renamed
 * into place, never through a symbolic link (outputPathProblem said why before anything ran).
 */
export function writeOutputFile(file: string, cwd: string, data: string | Iterable<string>): void {
  const at = anchored(file, cwd);
  writeFileIn(at.root, at.file, data, { links: "refuse" });
}

function writeLog(file: string, cwd: string, log: SarifLogLike): number {
  let bytes = 0;
  function* counted() {
    for (const chunk of jsonChunks(log)) {
      bytes += Buffer.byteLength(chunk);
      yield chunk;
    }
    bytes += 1;
    yield "\n";
  }
  writeOutputFile(file, cwd, counted());
  return bytes;
}

/**
 * Writes the SARIF file: every result (unless --sarif-max-results asks for fewer, which the log and stderr
 * then say), GitHub's limits checked per run and for the whole upload (its compressed size is measured; past
 * 10 MB the log is written again with that said in its runs). Throws ToolError (path_validation) for a link.
 */
export async function writeSarifOutput(
  file: string,
  merged: SarifLogLike,
  options: SarifOutputOptions,
): Promise<SarifOutputReport> {
  let log = merged;
  const shown = isWithin(options.cwd, file) ? relativeTo(options.cwd, file) || file : file;
  if (options.maxResults !== undefined) {
    const cut = limitResultsPerRun(log, options.maxResults);
    log = cut.log;
    for (const c of cut.cuts)
      options.warn(
        `${shown}: ${c.tool}: ${c.total - c.kept} of ${c.total} results left out (--sarif-max-results ${options.maxResults}: the most severe kept)`,
      );
  }
  const limited = withGithubLimitNotes(log);
  log = limited.log;
  const notes = [...limited.notes];
  let bytes = writeLog(file, options.cwd, log);
  // Compressed, the log is at most its size: only a log over the limit uncompressed can be over it.
  if (bytes > GITHUB_LIMITS.gzipBytes) {
    const gz = await gzipBytes(log);
    if (gz > GITHUB_LIMITS.gzipBytes) {
      const mb = (n: number) => (n / 1e6).toFixed(1);
      notes.push({
        text: `the log is ${mb(gz)} MB gzip-compressed (${mb(bytes)} MB as written): GitHub code scanning accepts uploads up to ${mb(GITHUB_LIMITS.gzipBytes)} MB compressed (split it: one check per language or path with --only, or fewer results with --sarif-max-results)`,
      });
      log = withLimitNotes(log, notes);
      bytes = writeLog(file, options.cwd, log);
    }
  }
  for (const n of notes) options.warn(`${shown}: ${n.text}`);
  const results = log.runs.reduce((s, r) => s + (r.results?.length ?? 0), 0);
  return { results, bytes, notes };
}
