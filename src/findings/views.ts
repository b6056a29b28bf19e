/**
 * Results as views over findings, built here only: seed 000's `issues` strings and counts, the
 * findings list, capped at a count with the full count kept, display paths and fingerprints filled in.
 */
import { BatchReader } from "../paths/safe-fs.js";
import type { DisplayPaths } from "./display-path.js";
import { assignFingerprints } from "./fingerprint.js";
import { estimateTokens, fairTrim, prefixThatFits, reserveFor } from "./budget.js";
import { countBySeverity, linePosition, type Finding, type Severity } from "./model.js";
import type { FindingTally } from "./collector.js";
import { isPaged, pageOf } from "./paging.js";

export const MAX_LISTED_FINDINGS = 500;

export interface ViewOptions {
  display: DisplayPaths;
  /** Most findings listed (default 500); counts stay full. */
  cap?: number;
  /** Compute fingerprints (they read the files named); off when only strings are shown. */
  fingerprints?: boolean;
  /** A token budget, paging and snippets for what is listed (see budget.ts, paging.ts). */
  listing?: ListingOptions;
  /** Findings the tool reported after these, counted but not kept (collector.ts): in the counts, never listed. */
  beyond?: FindingTally;
}

export interface ListingOptions {
  /** The whole result's budget, in estimated tokens (characters / 4). */
  maxTokens: number;
  /** Tokens the rest of the result takes (default RESULT_OVERHEAD_TOKENS). */
  reserveTokens?: number;
  offset?: number;
  limit?: number;
  /** Source lines before and after each listed finding, as its `snippet` (0: none). */
  contextLines?: number;
  /** Tokens one listed finding costs in the result (default: its issue string). */
  cost?: (f: Finding) => number;
}

/** What a listing under a budget or a page adds to a result. */
export interface ListingInfo {
  /** Trimmed to fit the budget (more findings exist than are listed). */
  trimmed: boolean;
  /** A page was asked for (`offset`/`limit`); its first finding's index. */
  page?: { offset: number };
  /** Where the next page starts, when paging and findings are left. */
  next_offset?: number;
  /** Arguments to add to the same call to get the rest. */
  next?: { offset: number; limit: number };
}

export interface FindingsView {
  /** Every finding, `path` (and `fingerprint` when asked) set. */
  all: Finding[];
  /** The first `cap` of them. */
  listed: Finding[];
  count: number;
  capped: boolean;
  counts: Record<Severity, number>;
  /** seed 000's `file:line:col: CODE message` of the listed findings. */
  issues: string[];
  /** Set when a listing (budget, page) was asked for. */
  listing?: ListingInfo;
  /** The findings counted but not kept, when there were any. */
  beyond?: FindingTally;
}

/** Longest line of a snippet; a snippet has at most 2 x 5 + 1 lines. */
const SNIPPET_LINE_CHARS = 160;
export const MAX_CONTEXT_LINES = 5;

function snippetOf(f: Finding, lines: string[] | undefined, context: number): string | undefined {
  if (!lines || f.line < 1) return undefined;
  const from = Math.max(1, f.line - context);
  const to = Math.min(lines.length, (f.end_line ?? f.line) + context, f.line + 2 * context);
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    const text = lines[n - 1] ?? "";
    out.push(`${n}| ${text.length > SNIPPET_LINE_CHARS ? `${text.slice(0, SNIPPET_LINE_CHARS)}...` : text}`);
  }
  return out.join("\n");
}

/**
 * The findings listed under a budget: a page when asked, else all of them or a fair trim. `beyond` findings
 * follow `all` (counted, not kept): the listing is then never the whole, and a page ending at `all`'s end
 * still has a next one.
 */
function listFindings(all: Finding[], cap: number, listing: ListingOptions, beyond = 0) {
  // Small budgets keep most of themselves for the findings.
  const reserve = listing.reserveTokens ?? reserveFor(listing.maxTokens);
  const budget = listing.maxTokens - reserve;
  const base = listing.cost ?? ((f: Finding) => estimateTokens(issueString(f)) + 1);
  // With context_lines, each listed finding also has an entry in `findings[]` (its position and snippet):
  // counted whatever cost the tool gave.
  const withEntries = (listing.contextLines ?? 0) > 0;
  const cost = (f: Finding) => base(f) + (withEntries ? snippetCost(f) : 0);
  if (isPaged(listing)) {
    const page = pageOf(all, { offset: listing.offset, limit: Math.min(listing.limit ?? cap, cap) });
    const n = prefixThatFits(page.items, cost, budget);
    const end = page.offset + n;
    const info: ListingInfo = {
      trimmed: n < page.items.length || end < all.length + beyond,
      page: { offset: page.offset },
    };
    if (end < all.length + beyond) {
      info.next_offset = end;
      info.next = { offset: end, limit: n < page.items.length ? n : (listing.limit ?? n) };
    }
    return { listed: page.items.slice(0, n), info };
  }
  let total = 0;
  for (const f of all) total += cost(f);
  if (all.length <= cap && total <= budget && beyond === 0) return { listed: all, info: { trimmed: false } };
  const listed = fairTrim(all, cost, budget).slice(0, cap);
  // The rest in order: pages of as many findings as fit, from the first.
  const perPage = Math.min(cap, prefixThatFits(all, cost, budget));
  return { listed, info: { trimmed: true, next: { offset: 0, limit: perPage } } };
}

/** What a finding's entry in `findings[]` (position, rule and snippet) costs. */
function snippetCost(f: Finding): number {
  const { path, line, column, rule_id, snippet } = f;
  return estimateTokens({ path, line, column, rule_id, snippet }) + 1;
}

/** seed 000's issue string; ruff's own `[*]` marks a fix it applies without `--unsafe-fixes`. */
export function issueString(f: Finding): string {
  const ruff = f.tool === "ruff";
  const marker = ruff && f.correction?.safe ? "[*] " : "";
  // ruff prints names that are not codes (invalid-syntax) with a colon.
  const rule = ruff && f.rule_id && !/^[A-Z]+[0-9]+$/.test(f.rule_id) ? `${f.rule_id}:` : f.rule_id;
  return `${f.path ?? f.file}:${linePosition(f)}: ${rule ? `${rule} ` : ""}${marker}${f.message}`;
}

/** A reader of files' lines, each file read once, only files inside the allowed roots. */
export interface LineReader {
  lines(file: string): string[] | undefined;
  /** Closes the folders it opened. */
  close(): void;
}

export function lineReader(display: DisplayPaths): LineReader {
  const cache = new Map<string, string[] | undefined>();
  // One BatchReader per allowed root: each folder is opened once however many files it holds.
  const readers = new Map<string, BatchReader>();
  return {
    lines(file) {
      if (!cache.has(file)) {
        let lines: string[] | undefined;
        const root = display.allowedRoot(file);
        if (root)
          try {
            let reader = readers.get(root);
            if (!reader) readers.set(root, (reader = new BatchReader(root)));
            // Opened from its allowed root without following a link swapped in (paths/safe-fs.ts).
            lines = reader.readText(file).split(/\r?\n/);
          } catch {
            lines = undefined;
          }
        cache.set(file, lines);
      }
      return cache.get(file);
    },
    close() {
      for (const reader of readers.values()) reader.close();
      readers.clear();
    },
  };
}

export function findingsView(findings: readonly Finding[], options: ViewOptions): FindingsView {
  const cap = options.cap ?? MAX_LISTED_FINDINGS;
  const all = findings as Finding[];
  for (const f of all) f.path = options.display.show(f.file);
  const context = Math.min(options.listing?.contextLines ?? 0, MAX_CONTEXT_LINES);
  if (options.fingerprints || context > 0) {
    const reader = lineReader(options.display);
    try {
      const read = (file: string) => reader.lines(file);
      if (options.fingerprints) assignFingerprints(all, options.display.show, read);
      if (context > 0)
        for (const f of all) {
          const snippet = snippetOf(f, read(f.file), context);
          if (snippet !== undefined) f.snippet = snippet;
        }
    } finally {
      reader.close();
    }
  }
  let listed = all.length > cap ? all.slice(0, cap) : all;
  let listing: ListingInfo | undefined;
  const beyond = options.beyond?.count ? options.beyond : undefined;
  if (options.listing) ({ listed, info: listing } = listFindings(all, cap, options.listing, beyond?.count));
  const counts = countBySeverity(all);
  if (beyond) for (const s of Object.keys(counts) as Severity[]) counts[s] += beyond.bySeverity[s];
  return {
    all,
    listed,
    count: all.length + (beyond?.count ?? 0),
    capped: listing ? listing.trimmed : all.length > cap || beyond !== undefined,
    counts,
    issues: listed.map(issueString),
    ...(listing && { listing }),
    ...(beyond && { beyond }),
  };
}
