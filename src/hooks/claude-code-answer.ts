/**
 * What the Claude Code hook prints, in the shape Claude Code's hooks reference gives each event
 * (code.claude.com/docs/en/hooks). One verdict, rendered per event:
 *
 * - PreToolUse: `hookSpecificOutput.permissionDecision` deny | ask with `permissionDecisionReason`; advice
 *   is `hookSpecificOutput.additionalContext` with no decision (the model reads it, the call goes on).
 * - PostToolUse: the call already ran, so nobody can be asked: deny and ask are the top-level
 *   `decision: "block"` with `reason` (fed to the model); advice is `hookSpecificOutput.additionalContext`.
 * - Any other event: nothing (exit 0, empty stdout: Claude Code proceeds), never another event's shape.
 *
 * Pure: no I/O, so every entry (dist/hook.js, dist/bundle/hook.cjs, the start-up snapshot) answers alike.
 */

/** The events the hook judges: both carry `tool_name` and `tool_input`. */
export const JUDGED_EVENTS = ["PreToolUse", "PostToolUse"] as const;
export type JudgedEvent = (typeof JUDGED_EVENTS)[number];
/** The event a payload without `hook_event_name` is (the event `hook install claude-code` registers). */
export const DEFAULT_EVENT: JudgedEvent = "PreToolUse";

export type Verdict =
  | { kind: "allow" }
  /** Blocked: the call must not happen. */
  | { kind: "deny"; reason: string }
  /** Confirm-level or undecided: the human decides. */
  | { kind: "ask"; reason: string }
  /** Warn-level advice: the model reads it and the call goes on. */
  | { kind: "advise"; reason: string };

export function isJudgedEvent(event: string): event is JudgedEvent {
  return (JUDGED_EVENTS as readonly string[]).includes(event);
}

/** The hook's stdout for `verdict` on `event` ("" when there is nothing to say). */
export function renderAnswer(event: string, verdict: Verdict): string {
  if (verdict.kind === "allow" || !isJudgedEvent(event)) return "";
  if (event === "PreToolUse") {
    if (verdict.kind === "advise")
      return JSON.stringify({
        hookSpecificOutput: { hookEventName: event, additionalContext: verdict.reason },
      });
    return JSON.stringify({
      hookSpecificOutput: {
        hookEventName: event,
        permissionDecision: verdict.kind,
        permissionDecisionReason: verdict.reason,
      },
    });
  }
  if (verdict.kind === "advise")
    return JSON.stringify({
      hookSpecificOutput: { hookEventName: event, additionalContext: verdict.reason },
    });
  const why =
    verdict.kind === "ask"
      ? `${verdict.reason}\nThis call needed the human's confirmation and has already run: tell the human what it did.`
      : verdict.reason;
  return JSON.stringify({ decision: "block", reason: why });
}

/**
 * The event named at the start of a payload that is too large to read: Claude Code writes
 * `hook_event_name` before `tool_input`, so the first occurrence in the prefix is the payload's own.
 */
export function eventOfPrefix(prefix: string): string | undefined {
  return /"hook_event_name"\s*:\s*"([A-Za-z]+)"/.exec(prefix)?.[1];
}
