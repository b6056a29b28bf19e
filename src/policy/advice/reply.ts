/**
 * The structured advice every provider must answer with (seed 002's advice response), and how a provider's
 * reply text becomes one: the JSON object itself, or one inside a Markdown code fence. Anything else fails
 * with the parse error.
 */
import { z } from "zod";

const ids = z.array(z.string().min(1).max(200)).max(50);

export const AdviceReplySchema = z.strictObject({
  summary: z.string().min(1).max(2000),
  policy_ids: ids,
  principle_ids: ids,
  skill_ids: ids,
  steps: z.array(z.string().min(1).max(2000)).max(30),
  rerun: z.strictObject({
    tool: z.string().min(1).max(100),
    arguments: z.record(z.string(), z.unknown()),
  }),
  risks: z.array(z.string().min(1).max(2000)).max(30),
});

export type AdviceReply = z.infer<typeof AdviceReplySchema>;

/** The JSON text of a reply: the whole text, or the body of its first ```json (or bare ```) fence. */
function jsonText(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) return trimmed;
  const fence = /```(?:json)?\s*\n([\s\S]*?)\n```/.exec(trimmed);
  return fence ? (fence[1] as string) : trimmed;
}

export type ParsedReply = { ok: true; advice: AdviceReply } | { ok: false; error: string };

/** Parses a provider's reply text into advice, or says exactly why it is not advice. */
export function parseAdviceReply(text: string): ParsedReply {
  let value: unknown;
  try {
    value = JSON.parse(jsonText(text));
  } catch (err) {
    return { ok: false, error: `reply is not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  const parsed = AdviceReplySchema.safeParse(value);
  if (!parsed.success)
    return {
      ok: false,
      error: `reply does not match the advice schema: ${parsed.error.issues
        .map((i) => `${i.path.join(".") || "reply"}: ${i.message}`)
        .join("; ")}`,
    };
  return { ok: true, advice: parsed.data };
}
