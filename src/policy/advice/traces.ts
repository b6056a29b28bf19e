/**
 * Advice traces: one JSON file per remediation_advice request under `<project root>/.mcp-cache/advice-traces/`,
 * so that what was asked, of whom, with which context and what came back can be measured later. Folders are
 * owner-only, files 0600, each created exclusively and reached from the root without following a link.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { createFileIn, lstatIn, openDirIn, writeFileIn } from "../../paths/safe-fs.js";
import { ToolError } from "../../errors.js";
import { pruneTraces, type RetentionLimits } from "../../traces/lint-runs.js";

/** Advice trace ids, as newRequestId makes them. */
// The milliseconds since 2026-12-06: two requests in one second are kept and dropped in their order (file
// times are as coarse as the kernel's tick, and tied ones are ordered by id). Ids without them still read.
const REQUEST_ID = /^adv-\d{8}T\d{6}(?:\d{3})?Z-[0-9a-f]{12}$/;

export const ADVICE_TRACES_DIR = path.join(".mcp-cache", "advice-traces");

export interface AdviceTrace {
  request_id: string;
  created_at: string;
  /** claude, codex, gemini, or local. */
  provider: string;
  bundle_hash: string;
  policy_ids: string[];
  principle_ids: string[];
  skill_ids: string[];
  /** The finding's tool, rule and location. */
  finding?: Record<string, unknown>;
  /** Snippet ranges sent (never the text of whole files). */
  files: { path: string; start_line: number; end_line: number }[];
  prompt_bytes?: number;
  prompt_sha256?: string;
  /** The provider run: its argv with the prompt left out, exit code, signal, timeout, duration. */
  exit?: Record<string, unknown>;
  /** The normalized advice, when the reply parsed. */
  response?: unknown;
  /** The provider's own output, capped, for traceability. */
  raw_reply?: string;
  failures: string[];
}

/** `adv-<UTC timestamp to the millisecond>-<random>`: sortable, unique, a bare file name. */
export function newRequestId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:.]/g, "");
  return `adv-${stamp}-${randomBytes(6).toString("hex")}`;
}

/**
 * Writes a trace under `root` and returns its path; never overwrites one. The folder keeps the same count and
 * byte limits as the lint traces (--trace-max-count, --trace-max-bytes): the oldest are dropped first.
 */
export function writeAdviceTrace(root: string, trace: AdviceTrace, limits?: RetentionLimits): string {
  const cache = path.join(root, ".mcp-cache");
  const dir = path.join(root, ADVICE_TRACES_DIR);
  for (const d of [cache, dir]) {
    const opened = openDirIn(root, d, { create: 0o700 });
    try {
      opened.chmod(0o700);
    } finally {
      opened.close();
    }
  }
  const gitignore = path.join(cache, ".gitignore");
  if (!lstatIn(root, gitignore)?.isFile())
    writeFileIn(root, gitignore, "# state of mcp-code-quality: never commit\n*\n", {
      mode: 0o600,
      links: "replace",
    });
  const file = path.join(dir, `${trace.request_id}.json`);
  if (!createFileIn(root, file, `${JSON.stringify(trace, null, 2)}\n`, 0o600))
    throw new ToolError("exception", `advice trace ${file} already exists; nothing was overwritten`);
  if (limits) pruneTraces(root, dir, trace.request_id, limits, REQUEST_ID);
  return file;
}
