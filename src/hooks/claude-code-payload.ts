/**
 * The Claude Code hook's input, validated with zod before anything is judged: the envelope (event, tool,
 * cwd) and, for each tool the hook checks, the `tool_input` fields it reads, typed as Claude Code's tool
 * schemas give them. A payload that does not match is refused with what is wrong, never judged on a
 * default (`{"command": 123}` read as "" would be allowed). Other fields are let through: Claude Code adds
 * new ones (`description`, `timeout`, `run_in_background`, …) and the checks do not read them.
 *
 * zod/mini with its English messages, bundled into hook.cjs (scripts/bundle-hook.mjs): the full `zod`
 * from node_modules costs every decision about 100 ms to load, this about a tenth of it.
 */
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";
import { DEFAULT_EVENT } from "./claude-code-answer.js";

z.config(en());

const filePath = z.string().check(z.minLength(1));
const replacement = {
  old_string: z.string(),
  new_string: z.string(),
  replace_all: z.optional(z.boolean()),
};

/** The `tool_input` of every tool the hook checks (the installed matcher names the same tools). */
export const TOOL_INPUTS = {
  Bash: z.object({ command: z.string() }),
  Write: z.object({ file_path: filePath, content: z.string() }),
  Edit: z.object({ file_path: filePath, ...replacement }),
  MultiEdit: z.object({ file_path: filePath, edits: z.array(z.object(replacement)).check(z.minLength(1)) }),
  NotebookEdit: z
    .object({
      notebook_path: filePath,
      cell_id: z.optional(z.string()),
      new_source: z.optional(z.string()),
      edit_mode: z.optional(z.enum(["replace", "insert", "delete"])),
    })
    .check(
      z.refine((i) => i.edit_mode === "delete" || i.new_source !== undefined, {
        message: "new_source is required unless edit_mode is delete",
        path: ["new_source"],
      }),
    ),
};
export type CheckedTool = keyof typeof TOOL_INPUTS;
export type ToolCall = {
  [T in CheckedTool]: { tool: T; input: z.infer<(typeof TOOL_INPUTS)[T]> };
}[CheckedTool];

const envelope = z.object({
  hook_event_name: z.optional(z.string()),
  tool_name: z.optional(z.string()),
  cwd: z.optional(z.string()),
  tool_input: z.optional(z.unknown()),
});

export type ParsedPayload =
  /** A tool the hook checks, with its input as its schema demands. */
  | { kind: "call"; event: string; cwd?: string; call: ToolCall }
  /** A tool the hook does not check (its input is not read). */
  | { kind: "other"; event: string }
  /** Not what Claude Code sends: `error` says what is wrong. */
  | { kind: "invalid"; event: string; error: string };

function describe(issues: readonly z.core.$ZodIssue[], prefix: string): string {
  return issues
    .slice(0, 5)
    .map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join(".") || "payload"}: ${i.message}`)
    .join("; ");
}

function isCheckedTool(tool: string): tool is CheckedTool {
  return Object.hasOwn(TOOL_INPUTS, tool);
}

/** The payload's event, tool and input; JSON that does not parse throws (the caller denies). */
export function parsePayload(raw: string): ParsedPayload {
  const json: unknown = JSON.parse(raw);
  const outer = envelope.safeParse(json);
  if (!outer.success) {
    // Its event, when that field at least is a string: the denial must be in that event's shape.
    const named = (json as { hook_event_name?: unknown } | null)?.hook_event_name;
    const event = typeof named === "string" ? named : DEFAULT_EVENT;
    return { kind: "invalid", event, error: describe(outer.error.issues, "") };
  }
  const { hook_event_name: event = DEFAULT_EVENT, tool_name: tool = "", cwd } = outer.data;
  if (!isCheckedTool(tool)) return { kind: "other", event };
  const inner = TOOL_INPUTS[tool].safeParse(outer.data.tool_input);
  if (!inner.success)
    return {
      kind: "invalid",
      event,
      error: `${tool} ${describe(inner.error.issues, "tool_input")}`,
    };
  const call = { tool, input: inner.data } as ToolCall;
  return { kind: "call", event, ...(cwd !== undefined ? { cwd } : {}), call };
}
