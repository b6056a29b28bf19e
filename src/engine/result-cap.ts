/**
 * The hard cap on one result: whatever a tool returns, its JSON stays within `--max-result-bytes`, so
 * no client's message buffer (10 MiB in the MCP SDK's) is ever overrun. Past the cap, the longest
 * strings are cut in their middle first (each says how many bytes it lost), then the longest lists
 * lose their last entries (counted per list); `*_count` fields keep the full counts.
 */
import type { PagedListing, ToolResult } from "./tool.js";

export interface ResultCapReport {
  max_bytes: number;
  original_bytes: number;
  strings_cut: number;
  /** Entries dropped from the end of each list, by its path in the result (`files[2].messages`). */
  entries_dropped: Record<string, number>;
}

/** Strings are never cut below this many bytes; past that, lists shrink. */
const MIN_STRING_BYTES = 512;
/** Room kept for the report and the note. */
const RESERVE_BYTES = 2048;

const jsonBytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v) ?? "");

function marker(cutBytes: number, maxBytes: number): string {
  return `\n... [${cutBytes} bytes cut: the result is capped at ${maxBytes} bytes (--max-result-bytes)] ...\n`;
}

interface StringLeaf {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  value: string;
  /** Its bytes as JSON (escaped, without quotes). */
  bytes: number;
}

interface ListNode {
  list: unknown[];
  path: string;
}

function walk(value: unknown, path: string, strings: StringLeaf[], lists: ListNode[]): void {
  if (Array.isArray(value)) {
    lists.push({ list: value, path });
    value.forEach((v, i) => {
      if (typeof v === "string") strings.push({ holder: value, key: i, value: v, bytes: jsonBytes(v) - 2 });
      else walk(v, `${path}[${i}]`, strings, lists);
    });
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const p = path ? `${path}.${k}` : k;
      if (typeof v === "string")
        strings.push({ holder: value as Record<string, unknown>, key: k, value: v, bytes: jsonBytes(v) - 2 });
      else walk(v, p, strings, lists);
    }
  }
}

/** Cuts the middle of a string to about `keepBytes` (as JSON), with a marker saying how much went. */
function cutString(s: string, bytes: number, keepBytes: number, maxBytes: number): string {
  const keepChars = Math.max(0, Math.floor((s.length * keepBytes) / bytes));
  let head = Math.floor((keepChars * 2) / 3);
  let tailStart = s.length - (keepChars - head);
  // Never split a surrogate pair.
  if (head > 0 && /[\ud800-\udbff]/.test(s[head - 1] ?? "")) head--;
  if (tailStart < s.length && /[\udc00-\udfff]/.test(s[tailStart] ?? "")) tailStart++;
  const cut = Buffer.byteLength(s.slice(head, tailStart));
  return s.slice(0, head) + marker(cut, maxBytes) + s.slice(tailStart);
}

/** Cuts the longest strings (water-filling: all above one length are cut to it) to save `excess` bytes. */
function cutStrings(root: unknown, excess: number, maxBytes: number, report: ResultCapReport): void {
  const strings: StringLeaf[] = [];
  walk(root, "", strings, []);
  const overhead = marker(maxBytes, maxBytes).length + 8;
  const saved = (t: number) => strings.reduce((n, s) => n + Math.max(0, s.bytes - t - overhead), 0);
  let lo = MIN_STRING_BYTES;
  // A loop, not Math.max(...spread): a result can hold more strings than a call has room for arguments.
  let hi = lo;
  for (const s of strings) if (s.bytes > hi) hi = s.bytes;
  if (saved(lo) < excess) hi = lo;
  // The largest length `t` that still saves enough.
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (saved(mid) >= excess) lo = mid;
    else hi = mid - 1;
  }
  for (const s of strings) {
    if (s.bytes - lo - overhead <= 0) continue;
    (s.holder as Record<string | number, unknown>)[s.key] = cutString(s.value, s.bytes, lo, maxBytes);
    report.strings_cut++;
  }
}

/** Is `inner` inside `outer` (by their paths in the result)? */
const isInside = (inner: string, outer: string) =>
  inner !== outer && (outer === "" || inner.startsWith(`${outer}[`) || inner.startsWith(`${outer}.`));

/**
 * Drops entries from the end of the largest lists until `excess` bytes are saved. A list most of whose
 * bytes sit in one list inside it (`files` holding one file's `messages`) leaves the cut to that one.
 */
function dropEntries(root: unknown, excess: number, report: ResultCapReport): void {
  const lists: ListNode[] = [];
  walk(root, "", [], lists);
  const sized = lists.map((l) => ({ ...l, bytes: jsonBytes(l.list) }));
  while (excess > 0) {
    sized.sort((a, b) => b.bytes - a.bytes);
    const target = sized.find(
      (l) => l.list.length > 0 && !sized.some((o) => isInside(o.path, l.path) && o.bytes > l.bytes / 2),
    );
    if (!target) return;
    // Half of it at most per round, so the other lists share the cut.
    const goal = Math.min(excess, Math.ceil(target.bytes / 2));
    let removed = 0;
    let n = 0;
    while (removed < goal && target.list.length > 0) {
      removed += jsonBytes(target.list.pop()) + 1;
      n++;
    }
    for (const l of sized) if (l === target || isInside(target.path, l.path)) l.bytes -= removed;
    excess -= removed;
    const key = target.path || "(result)";
    report.entries_dropped[key] = (report.entries_dropped[key] ?? 0) + n;
  }
}

/** The `keep` largest counts, the rest summed under "(other lists)", so the report stays small. */
function fewest(counts: Record<string, number>, keep: number): Record<string, number> {
  const sorted = Object.entries(counts).sort(([, a], [, b]) => b - a);
  if (sorted.length <= keep) return counts;
  const out = Object.fromEntries(sorted.slice(0, keep));
  out["(other lists)"] = sorted.slice(keep).reduce((n, [, c]) => n + c, 0);
  return out;
}

type Messages = { messages?: unknown[] };

/**
 * Shortens a listing as a whole, to its first `k` findings in every list that holds them (and in the
 * per-file messages), for the largest `k` (at least 1, so pages move on) that brings the result within
 * `target`; then `next_offset` / `next` name the first finding not shown, as if the budget had cut the page.
 */
function shrinkListing(
  work: ToolResult,
  listing: PagedListing,
  target: number,
  report: ResultCapReport,
): void {
  const lists = listing.lists.filter((k) => Array.isArray(work[k]));
  const perFile = listing.perFile && Array.isArray(work[listing.perFile]) ? listing.perFile : undefined;
  const original = new Map(lists.map((k) => [k, work[k] as unknown[]]));
  const files = perFile ? (work[perFile] as Messages[]) : [];
  const messages = files.reduce((n, f) => n + (f.messages?.length ?? 0), 0);
  const n = lists.length ? Math.max(...lists.map((k) => original.get(k)!.length)) : messages;
  if (n <= 1) return;
  const apply = (k: number) => {
    for (const [key, list] of original) work[key] = list.slice(0, k);
    if (!perFile) return;
    let left = k;
    const kept: Messages[] = [];
    for (const f of files) {
      const had = f.messages?.length ?? 0;
      if (had === 0) {
        kept.push(f);
        continue;
      }
      if (left === 0) continue;
      kept.push({ ...f, messages: f.messages!.slice(0, left) });
      left -= Math.min(left, had);
    }
    work[perFile] = kept;
  };
  let lo = 1;
  let hi = n;
  apply(n);
  if (jsonBytes(work) <= target) return;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    apply(mid);
    if (jsonBytes(work) <= target) lo = mid;
    else hi = mid - 1;
  }
  apply(lo);
  report.entries_dropped["(listed findings)"] = n - lo;
  work.truncated = true;
  if (listing.offset !== undefined) {
    work.next_offset = listing.offset + lo;
    work.next = { offset: listing.offset + lo, limit: lo };
  } else {
    const limit = (work.next as { limit?: number } | undefined)?.limit ?? lo;
    work.next = { offset: 0, limit: Math.min(limit, lo) };
  }
}

/**
 * How a cut result says so: `fields` adds `result_capped` and a note to `notes`; `note` (a fixed-shape result
 * whose schema admits no new field, seed 001's) appends the sentence to its own `note` string; `none` says
 * nothing (the inner pass of the last resort below).
 */
export type CapAnnotation = "fields" | "note" | "none";

/**
 * The result itself when its JSON fits in `maxBytes`; otherwise a cut copy that fits, with a report of
 * what was cut, said as `annotate` asks. A declared listing (`listing`) is shortened as a whole, its paging
 * fields kept exact.
 */
export function capResultBytes(
  result: ToolResult,
  maxBytes: number,
  annotate: CapAnnotation = "fields",
  listing?: PagedListing,
): ToolResult {
  const json = JSON.stringify(result);
  const original = Buffer.byteLength(json);
  if (original <= maxBytes) return result;
  const work = JSON.parse(json) as ToolResult;
  const report: ResultCapReport = {
    max_bytes: maxBytes,
    original_bytes: original,
    strings_cut: 0,
    entries_dropped: {},
  };
  const target = Math.max(1024, maxBytes - RESERVE_BYTES);
  let size = original;
  for (let round = 0; round < 4 && size > target; round++) {
    cutStrings(work, size - target, maxBytes, report);
    size = jsonBytes(work);
    if (size > target && listing && round === 0) {
      shrinkListing(work, listing, target, report);
      size = jsonBytes(work);
    }
    if (size > target) {
      dropEntries(work, size - target, report);
      size = jsonBytes(work);
    }
  }
  let out: ToolResult = work;
  if (size > target) {
    // Only keys and numbers are left to cut: keep what says what happened.
    out = { success: result.success };
    for (const k of ["error", "error_type", "passed", "formatted"])
      if (typeof result[k] !== "object") out[k] = result[k];
    out = JSON.parse(JSON.stringify(capResultBytes(out, maxBytes, "none"))) as ToolResult;
  }
  if (annotate === "none") return out;
  if (annotate === "note") {
    const dropped = Object.entries(fewest(report.entries_dropped, 5))
      .map(([list, n]) => `${n} from ${list}`)
      .join(", ");
    const said =
      `The result (${original} bytes) was cut to fit --max-result-bytes ${maxBytes}: ` +
      `${report.strings_cut} string(s) shortened in the middle${dropped ? `, entries dropped: ${dropped}` : ""}.`;
    out.note = typeof out.note === "string" && out.note ? `${out.note} ${said}` : said;
    return out;
  }
  out.result_capped = { ...report, entries_dropped: fewest(report.entries_dropped, 20) };
  const note = `the result (${original} bytes) was cut to fit --max-result-bytes ${maxBytes}: see result_capped`;
  out.notes = Array.isArray(out.notes) ? [...(out.notes as unknown[]), note] : [note];
  return out;
}
