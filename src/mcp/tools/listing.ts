/**
 * The arguments every tool that lists findings shares (`max_result_tokens`, `offset`, `limit`,
 * `context_lines`) and the fields they add to its result (`summary_text`, `truncated`, `next_offset`,
 * `next`). The budget and paging themselves live in findings/ (budget.ts, paging.ts, views.ts).
 */
import { z } from "zod";
import { PAGED_LISTING, type PagedListing, type ToolContext } from "../../engine/tool.js";
import { summaryText } from "../../findings/summary-text.js";
import type { Finding } from "../../findings/model.js";
import { effectiveTokens, estimateTokens } from "../../findings/budget.js";
import {
  findingsView,
  MAX_CONTEXT_LINES,
  type FindingsView,
  type ListingOptions,
  type ViewOptions,
} from "../../findings/views.js";

export const LISTING_ARGS = {
  max_result_tokens: z.number().int().min(500).max(250_000).optional().describe("Token budget"),
  offset: z.number().int().min(0).max(1_000_000).optional().describe("Entries to skip"),
  limit: z.number().int().min(1).max(500).optional().describe("Entries to list"),
  context_lines: z.number().int().min(0).max(MAX_CONTEXT_LINES).optional().describe("Source context lines"),
};

/** The budget and paging arguments alone, for tools whose entries have no source lines to show. */
export const PAGING_ARGS = {
  max_result_tokens: LISTING_ARGS.max_result_tokens,
  offset: LISTING_ARGS.offset,
  limit: LISTING_ARGS.limit,
};

export interface ListingArgs {
  max_result_tokens?: number;
  offset?: number;
  limit?: number;
  context_lines?: number;
}

/** The view's listing options of a call (the server's --max-result-tokens by default). */
export function listingOf(
  ctx: ToolContext,
  args: ListingArgs,
  extra: Pick<ListingOptions, "cost" | "reserveTokens"> = {},
): ListingOptions {
  return {
    maxTokens: effectiveTokens(
      args.max_result_tokens ?? ctx.config.maxResultTokens,
      ctx.maxResultBytes ?? ctx.config.maxResultBytes,
    ),
    offset: args.offset,
    limit: args.limit,
    contextLines: args.context_lines,
    ...extra,
  };
}

/** Which lists of a result hold the listed findings (see PagedListing). */
export type ListedIn = Omit<PagedListing, "offset">;

/**
 * When the listing is trimmed or paged: `truncated`, `next_offset`, `next`; and, for the hard byte cap, which
 * of the result's lists hold the listed findings (`listed`), so that a cut keeps `next_offset` exact.
 */
export function pageFields(view: FindingsView, listed: ListedIn) {
  const info = view.listing;
  const paged = info ? { [PAGED_LISTING]: { ...listed, offset: info.page?.offset } } : {};
  return {
    ...(info?.trimmed && { truncated: true }),
    ...(info?.next_offset !== undefined && { next_offset: info.next_offset }),
    ...(info?.next && { next: info.next }),
    ...paged,
  };
}

/** `summary_text`, and when the listing is trimmed or paged: `truncated`, `next_offset`, `next`. */
export function listingFields(
  tool: string,
  view: FindingsView,
  listed: ListedIn,
  all: readonly Finding[] = view.all,
) {
  return { summary_text: summaryText(tool, all, view.beyond), ...pageFields(view, listed) };
}

/**
 * A tool's own list (one entry per finding, in the same order) listed as the findings view lists those
 * findings: within the call's budget, fairly trimmed or paged. Each listed entry costs its own JSON.
 */
export function listEntries<T>(
  ctx: ToolContext,
  args: ListingArgs,
  entries: readonly T[],
  findings: Finding[],
  options: Omit<ViewOptions, "listing">,
  reserveTokens?: number,
): { items: T[]; view: FindingsView } {
  const entryOf = new Map(findings.map((f, i) => [f, entries[i] as T]));
  const cost = (f: Finding) => estimateTokens(entryOf.get(f)) + 1;
  const view = findingsView(findings, {
    ...options,
    listing: listingOf(ctx, args, { cost, ...(reserveTokens !== undefined && { reserveTokens }) }),
  });
  return { items: view.listed.map((f) => entryOf.get(f) as T), view };
}

/** The listed findings with their snippets, when snippets were asked for (lint lists strings otherwise). */
export function snippetFindings(view: FindingsView, args: ListingArgs) {
  if (!args.context_lines) return {};
  return {
    findings: view.listed.map((f) => ({
      path: f.path,
      line: f.line,
      column: f.column,
      rule_id: f.rule_id,
      ...(f.snippet !== undefined && { snippet: f.snippet }),
    })),
  };
}

/**
 * A result whose listing is not all of its cost (lint_check's advice per listed rule): built with the
 * listing's budget, measured, and built again with the listing's budget less the excess (a few times at
 * most), so the whole result keeps within `tokens`.
 */
export function withinBudget<R>(tokens: number, build: (listingTokens: number) => R): R {
  let listingTokens = tokens;
  let result = build(listingTokens);
  for (let round = 0; round < 4; round++) {
    const over = estimateTokens(result) - tokens;
    if (over <= 0 || listingTokens <= 1) break;
    listingTokens = Math.max(1, listingTokens - over - 32);
    result = build(listingTokens);
  }
  return result;
}
