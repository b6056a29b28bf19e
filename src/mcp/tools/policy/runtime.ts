/** The server's policy runtime (registered at start; compiled here on first use when it was not). */
import type { ToolContext } from "../../../engine/tool.js";
import { ToolError } from "../../../errors.js";
import { closest } from "fastest-levenshtein";
import { POLICY_RUNTIME_SERVICE, PolicyRuntime } from "../../../policy/runtime.js";
import { BundleError } from "../../../policy/bundle-error.js";

/** The runtime, its bundles brought up to date with the project policy files first (same hash as the hooks). */
export async function policyRuntime(ctx: ToolContext): Promise<PolicyRuntime> {
  const holder = ctx.services.get<RuntimeHolder>(POLICY_RUNTIME_SERVICE, () => ({}));
  holder.ready ??= PolicyRuntime.start(ctx.allowlist.roots.effective, ctx.config.policyAllowLoosening);
  holder.close ??= async () => (await holder.ready)?.close();
  const runtime = await holder.ready;
  try {
    await runtime.refresh();
  } catch (err) {
    if (err instanceof BundleError)
      throw new ToolError(
        "tool_error",
        `the project's policy file changed and no longer compiles:\n${err.message}`,
      );
    throw err;
  }
  return runtime;
}

/** Where the server keeps its runtime (registerPolicyServices fills it at start). */
interface RuntimeHolder {
  ready?: Promise<PolicyRuntime>;
  close?: () => Promise<void>;
}

/** Brings the policy runtime up to date when one is registered (the advisor then answers from it). */
export async function refreshPolicy(ctx: ToolContext): Promise<void> {
  const holder = ctx.services.get<RuntimeHolder>(POLICY_RUNTIME_SERVICE, () => ({}));
  if (holder.ready) await policyRuntime(ctx);
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

/**
 * The bundle's `kind` named `wanted` (what its lookup `found`), or invalid_input naming the ids nearest to
 * it among `all`: every lookup by id of the policy tools answers a typo the same way.
 */
export function knownId<T>(
  kind: string,
  wanted: string,
  found: T | undefined,
  all: readonly { id: string }[],
): T {
  if (found === undefined)
    unknownId(
      kind,
      wanted,
      all.map((x) => x.id),
    );
  return found;
}

function unknownId(kind: string, wanted: string, known: readonly string[]): never {
  const suggestions = didYouMean(wanted, known);
  throw new ToolError(
    "invalid_input",
    `unknown ${kind} "${wanted}"${suggestions.length ? `; did you mean ${suggestions.join(", ")}?` : ""}`,
    { did_you_mean: suggestions },
  );
}
