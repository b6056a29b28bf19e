/**
 * Claude Code's hook output, per event, as its hooks reference (code.claude.com/docs/en/hooks) gives it,
 * as strict zod schemas: an answer with a field another event uses (a PreToolUse `permissionDecision` on
 * a PostToolUse payload, a `hookEventName` that is not the payload's) does not parse.
 */
import { z } from "zod";

const text = z.string().min(1);

export const PRE_TOOL_USE_OUTPUT = z.strictObject({
  hookSpecificOutput: z.strictObject({
    hookEventName: z.literal("PreToolUse"),
    permissionDecision: z.enum(["allow", "deny", "ask", "defer"]).optional(),
    permissionDecisionReason: text.optional(),
    additionalContext: text.optional(),
  }),
});

export const POST_TOOL_USE_OUTPUT = z.strictObject({
  decision: z.literal("block").optional(),
  reason: text.optional(),
  hookSpecificOutput: z
    .strictObject({ hookEventName: z.literal("PostToolUse"), additionalContext: text.optional() })
    .optional(),
});

export type HookDecision = "allow" | "deny" | "ask" | "advise";

/** What a PreToolUse answer decides: nothing (allow), deny, ask, or context for the model only (advise). */
export function preToolUseDecision(stdout: string): HookDecision {
  if (stdout.trim() === "") return "allow";
  const out = PRE_TOOL_USE_OUTPUT.parse(JSON.parse(stdout)).hookSpecificOutput;
  if (out.permissionDecision === "deny" || out.permissionDecision === "ask") return out.permissionDecision;
  if (out.permissionDecision === undefined && out.additionalContext) return "advise";
  throw new Error(`unexpected PreToolUse answer: ${stdout}`);
}

/** The text a PreToolUse answer gives (the decision's reason, or the context). */
export function preToolUseText(stdout: string): string {
  const out = PRE_TOOL_USE_OUTPUT.parse(JSON.parse(stdout)).hookSpecificOutput;
  return out.permissionDecisionReason ?? out.additionalContext ?? "";
}

/** What a PostToolUse answer does: nothing (allow), block (the reason goes to the model), or advise. */
export function postToolUseDecision(stdout: string): "allow" | "block" | "advise" {
  if (stdout.trim() === "") return "allow";
  const out = POST_TOOL_USE_OUTPUT.parse(JSON.parse(stdout));
  if (out.decision === "block" && out.reason) return "block";
  if (out.decision === undefined && out.hookSpecificOutput?.additionalContext) return "advise";
  throw new Error(`unexpected PostToolUse answer: ${stdout}`);
}
