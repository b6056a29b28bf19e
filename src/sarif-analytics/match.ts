/**
 * Which result of one log is which of another: a deterministic assignment in three stages, each over what the
 * earlier ones left, that does not depend on the order the logs list their results in (both sides are taken
 * in position-then-content order, and pairs are made in that order):
 *
 * 1. group key: keys the logs themselves give (correlationGuid, seed 002's coding_ethos_group_key), never one
 *    computed from a line number;
 * 2. fingerprint: content fingerprints only (partialFingerprints or fingerprints as given, else the region's
 *    text hashed), with the tool, file and rule;
 * 3. fallback: tool, rule, file and message (digits masked), for results without comparable fingerprints.
 *
 * Two results of one tool whose content fingerprints of one kind differ are different findings: no stage
 * pairs them. Linear in the results after an n·log n sort. Pure.
 */
import { contentOrder } from "./normalize.js";
import type { NormalizedResult } from "./normalized.js";

export type MatchedBy = "group_key" | "fingerprint" | "fallback";

export interface Match {
  before: NormalizedResult;
  after: NormalizedResult;
  by: MatchedBy;
}

export interface Matching {
  matches: Match[];
  unmatchedBefore: NormalizedResult[];
  unmatchedAfter: NormalizedResult[];
}

/** A fingerprint made from the finding's content (given by the tool, or its snippet hashed), not its message. */
export const hasContentFingerprint = (r: NormalizedResult) => r.fingerprint_source !== "computed:message";

interface Side {
  r: NormalizedResult;
  /** Position in its side's order. */
  pos: number;
  tool: string;
}

interface Stage {
  by: MatchedBy;
  /** The bucket a result is matched within, or undefined to leave it to later stages. */
  bucket(x: Side): string | undefined;
  /** A key that, equal on both sides, always pairs (taken first). */
  exact?(x: Side): string | undefined;
  /** Classes that may not pair with each other (the same tool's differing fingerprints of one kind). */
  cls(x: Side): string;
}

const NONE = "";
/** Classes pair unless both have a content fingerprint of the same kind (they differ, or `exact` had paired them). */
const compatible = (a: string, b: string) => a === NONE || b === NONE || a !== b;

const STAGES: Stage[] = [
  {
    by: "group_key",
    bucket: (x) => (x.r.group_source === "sarif" ? x.r.group_key : undefined),
    exact: (x) =>
      hasContentFingerprint(x.r) ? `${x.tool}\0${x.r.fingerprint_source}\0${x.r.fingerprint}` : undefined,
    cls: (x) => (hasContentFingerprint(x.r) ? `${x.tool}\0${x.r.fingerprint_source}` : NONE),
  },
  {
    by: "fingerprint",
    bucket: (x) =>
      hasContentFingerprint(x.r)
        ? `${x.tool}\0${x.r.path ?? ""}\0${x.r.rule_id}\0${x.r.fingerprint_source}\0${x.r.fingerprint}`
        : undefined,
    cls: () => NONE,
  },
  {
    by: "fallback",
    bucket: (x) => `${x.tool}\0${x.r.fallback_key}`,
    cls: (x) => (hasContentFingerprint(x.r) ? x.r.fingerprint_source : NONE),
  },
];

/** A queue read from its head. */
class Queue<T> {
  private head = 0;
  constructor(private readonly items: T[] = []) {}
  push(x: T) {
    this.items.push(x);
  }
  peek(): T | undefined {
    return this.items[this.head];
  }
  shift(): T | undefined {
    return this.items[this.head++];
  }
}

/**
 * Pairs within one bucket: equal `exact` keys first, then each `after` (in order) with the earliest `before`
 * of a compatible class. O(n·k) for k classes (a handful: fingerprint kinds and tools).
 */
function pairBucket(stage: Stage, before: Side[], after: Side[], take: (b: Side, a: Side) => void): void {
  const taken = new Set<Side>();
  let left = after;
  if (stage.exact) {
    const byExact = new Map<string, Queue<Side>>();
    for (const b of before) {
      const k = stage.exact(b);
      if (k === undefined) continue;
      let q = byExact.get(k);
      if (!q) byExact.set(k, (q = new Queue()));
      q.push(b);
    }
    left = [];
    for (const a of after) {
      const k = stage.exact(a);
      const b = k === undefined ? undefined : byExact.get(k)?.shift();
      if (b) {
        taken.add(b);
        take(b, a);
      } else left.push(a);
    }
  }
  const queues = new Map<string, Queue<Side>>();
  for (const b of before) {
    if (taken.has(b)) continue;
    const c = stage.cls(b);
    let q = queues.get(c);
    if (!q) queues.set(c, (q = new Queue()));
    q.push(b);
  }
  for (const a of left) {
    const ca = stage.cls(a);
    let best: Queue<Side> | undefined;
    for (const [c, q] of queues) {
      const head = q.peek();
      if (head && compatible(ca, c) && (!best || head.pos < best.peek()!.pos)) best = q;
    }
    const b = best?.shift();
    if (b) take(b, a);
  }
}

/**
 * Pairs the results of `before` with those of `after`; each at most once. `beforeTool` gives the tool key a
 * result of `before` is compared under (its own, or the current log's name for it: tool-names.ts).
 */
export function matchResults(
  before: readonly NormalizedResult[],
  after: readonly NormalizedResult[],
  beforeTool: (r: NormalizedResult) => string = (r) => r.tool_key,
): Matching {
  const sides = (list: readonly NormalizedResult[], tool: (r: NormalizedResult) => string): Side[] =>
    [...list].sort(contentOrder).map((r, pos) => ({ r, pos, tool: tool(r) }));
  let restBefore = sides(before, beforeTool);
  let restAfter = sides(after, (r) => r.tool_key);
  const matches: Match[] = [];
  for (const stage of STAGES) {
    const buckets = new Map<string, { before: Side[]; after: Side[] }>();
    const add = (x: Side, side: "before" | "after") => {
      const k = stage.bucket(x);
      if (k === undefined) return;
      let b = buckets.get(k);
      if (!b) buckets.set(k, (b = { before: [], after: [] }));
      b[side].push(x);
    };
    for (const b of restBefore) add(b, "before");
    for (const a of restAfter) add(a, "after");
    const pairedBefore = new Set<Side>();
    const pairedAfter = new Set<Side>();
    for (const bucket of buckets.values()) {
      if (!bucket.before.length || !bucket.after.length) continue;
      pairBucket(stage, bucket.before, bucket.after, (b, a) => {
        pairedBefore.add(b);
        pairedAfter.add(a);
        matches.push({ before: b.r, after: a.r, by: stage.by });
      });
    }
    restBefore = restBefore.filter((x) => !pairedBefore.has(x));
    restAfter = restAfter.filter((x) => !pairedAfter.has(x));
  }
  matches.sort((x, y) => x.after.index - y.after.index);
  const byIndex = (a: NormalizedResult, b: NormalizedResult) => a.index - b.index;
  return {
    matches,
    unmatchedBefore: restBefore.map((x) => x.r).sort(byIndex),
    unmatchedAfter: restAfter.map((x) => x.r).sort(byIndex),
  };
}
