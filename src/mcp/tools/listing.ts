/**
 * The arguments every tool that lists findings shares (`max_result_tokens`, `offset`, `limit`,
 * `context_lines`) and the fields they add to its result (`summary_text`, `truncated`, `next_offset`,
 * `next`). The budget and paging themselves live in findings/ (budget.ts, paging.ts, views.ts).
 */
import { z } from "zod";
import type { ToolContext } from "../../engine/tool.js";
import { summaryText } from "../../findings/summary-text.js";
import type { Finding } from "../../findings/model.js";
import { MAX_CONTEXT_LINES, type FindingsView, type ListingOptions } from "../../findings/views.js";

export const LISTING_ARGS = {
  max_result_tokens: z.number().int().min(500).max(250_000).optional(),
  offset: z.number().int().min(0).max(1_000_000).optional(),
  limit: z.number().int().min(1).max(500).optional(),
  context_lines: z.number().int().min(0).max(MAX_CONTEXT_LINES).optional(),
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
    maxTokens: args.max_result_tokens ?? ctx.config.maxResultTokens,
    offset: args.offset,
    limit: args.limit,
    contextLines: args.context_lines,
    ...extra,
  };
}

/** `summary_text`, and when the listing is trimmed or paged: `truncated`, `next_offset`, `next`. */
export function listingFields(tool: string, view: FindingsView, all: readonly Finding[] = view.all) {
  const info = view.listing;
  return {
    summary_text: summaryText(tool, all),
    ...(info?.trimmed && { truncated: true }),
    ...(info?.next_offset !== undefined && { next_offset: info.next_offset }),
    ...(info?.next && { next: info.next }),
  };
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
