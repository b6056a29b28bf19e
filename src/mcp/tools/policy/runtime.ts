/** The server's policy runtime (registered at start; compiled here on first use when it was not). */
import type { ToolContext } from "../../../engine/tool.js";
import { ToolError } from "../../../errors.js";
import { closest } from "fastest-levenshtein";
import { POLICY_RUNTIME_SERVICE, PolicyRuntime } from "../../../policy/runtime.js";

export async function policyRuntime(ctx: ToolContext): Promise<PolicyRuntime> {
  const holder = ctx.services.get(POLICY_RUNTIME_SERVICE, () => ({
    ready: PolicyRuntime.start(ctx.allowlist.roots.effective, ctx.config.policyAllowLoosening),
  }));
  return holder.ready;
}

/** Ids near a misspelt one: shared prefix or substring first, then the closest by edit distance. */
export function didYouMean(wanted: string, known: readonly string[]): string[] {
  const w = wanted.toLowerCase();
  const near = known.filter(
    (k) => k.includes(w) || w.includes(k) || k.split(".").pop() === w.split(".").pop(),
  );
  const best = known.length ? closest(w, [...known]) : undefined;
  return [...new Set([...near, ...(best ? [best] : [])])].slice(0, 3);
}

export function unknownId(kind: string, wanted: string, known: readonly string[]): never {
  const suggestions = didYouMean(wanted, known);
  throw new ToolError(
    "invalid_input",
    `unknown ${kind} "${wanted}"${suggestions.length ? `; did you mean ${suggestions.join(", ")}?` : ""}`,
    { did_you_mean: suggestions },
  );
}
