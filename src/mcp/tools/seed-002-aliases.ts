/**
 * Seed 002's argument names (the original coding-ethos MCP server's), accepted as aliases of ours, so a client
 * written for that server switches by changing only the command that starts it. Every mapping is here, one
 * pure function per tool; the engine applies it to a call's arguments before the tool's own (strict) schema
 * validates them (engine.ts validateArguments), so the listing shows only our names and a bad value is an
 * InvalidParams error naming the seed's argument. docs/policy.md#seed-002-argument-names lists them.
 */
import path from "node:path";
import { z } from "zod";
import { InvalidArgumentsError } from "../../errors.js";
import type { ToolDefinition } from "../../engine/tool.js";

type Args = Record<string, unknown>;

/** Parses a seed argument's value (its own name in the message), or throws InvalidParams. */
function valueOf<T>(tool: string, name: string, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new InvalidArgumentsError(
      `Invalid arguments for ${tool}: ${name} (seed 002): ${parsed.error.issues[0]?.message ?? "invalid"}`,
    );
  return parsed.data;
}

/** Moves `from` to `to` (ours); both given is ambiguous. */
function rename(tool: string, args: Args, from: string, to: string): void {
  if (!(from in args)) return;
  if (to in args)
    throw new InvalidArgumentsError(
      `Invalid arguments for ${tool}: give ${to} or its seed 002 name ${from}, not both`,
    );
  args[to] = args[from];
  delete args[from];
}

/** Takes out a seed argument this server has no use for, after checking its type. */
function drop(tool: string, args: Args, name: string, schema: z.ZodType): void {
  if (!(name in args)) return;
  valueOf(tool, name, schema, args[name]);
  delete args[name];
}

const text = z.string();
const position = z.number().int().min(0);

/** seed 002's lint scopes: `files` (the default there) lints the files given, `full`/`smoke` the project. */
const SCOPES: Record<string, string> = {
  files: "all",
  full: "all",
  smoke: "all",
  changed: "changed",
  staged: "staged",
  all: "all",
};

function lintCheck(raw: Args): Args {
  const tool = "lint_check";
  const args = { ...raw };
  rename(tool, args, "cwd", "path");
  // Nothing this server runs needs an approval, so what the original gated behind it is always allowed.
  drop(tool, args, "admin_approved", z.boolean());
  if (typeof args.scope === "string" && args.scope in SCOPES) args.scope = SCOPES[args.scope];
  if ("argv" in args) {
    // The original appended argv to the managed tool's command line; here arguments never become options,
    // so its operands (files and folders) join `files` and an option is refused.
    const argv = valueOf(tool, "argv", z.array(z.string()).max(1000), args.argv);
    const option = argv.find((a) => a.startsWith("-"));
    if (option !== undefined)
      throw new InvalidArgumentsError(
        `Invalid arguments for ${tool}: argv (seed 002): ${option} is an option; this server passes no options to linters (name files or folders, or use tool and scope)`,
      );
    const files = args.files === undefined ? [] : valueOf(tool, "files", z.array(z.string()), args.files);
    delete args.argv;
    if (argv.length) args.files = [...files, ...argv];
  }
  return args;
}

/**
 * A seed diagnostic's fields as ours, in place: `code` is our `rule`, `file` our `path`; its severity and
 * position are checked and dropped (advice does not depend on them). One mapping for every tool that
 * takes a diagnostic.
 */
function diagnosticFields(tool: string, args: Args): void {
  rename(tool, args, "code", "rule");
  rename(tool, args, "file", "path");
  drop(tool, args, "severity", text);
  drop(tool, args, "line", position);
  drop(tool, args, "column", position);
}

/** seed 002's diagnostic `{tool, code, file, message, severity, line, column}` as ours `{tool, rule, message, path}`. */
function diagnosticOf(tool: string, name: string, raw: Args): Args | string {
  const d = { ...raw };
  diagnosticFields(tool, d);
  // No rule to map by: the diagnostic as text, which ranks skills by its words as the original did.
  if (d.rule === undefined && typeof d.message === "string")
    return [d.tool, d.message].filter((x) => typeof x === "string" && x).join(": ");
  if (d.rule === undefined)
    throw new InvalidArgumentsError(
      `Invalid arguments for ${tool}: ${name}: give its code (rule) or message`,
    );
  return d;
}

function lintAdvice(raw: Args): Args {
  const args = { ...raw };
  // lint_advice's arguments are one diagnostic's fields.
  diagnosticFields("lint_advice", args);
  return args;
}

function skillRecommend(raw: Args): Args {
  const tool = "skill_recommend";
  const args = { ...raw };
  rename(tool, args, "intent", "task");
  if (args.diagnostic && typeof args.diagnostic === "object" && !Array.isArray(args.diagnostic)) {
    const d = args.diagnostic as Args;
    // Ours is {tool, rule, message?, path?}: a seed diagnostic has code/file (or only a message).
    if ("code" in d || "file" in d || "severity" in d || "line" in d || "column" in d || !("rule" in d))
      args.diagnostic = diagnosticOf(tool, "diagnostic", d);
  }
  return args;
}

function sarifTrendAnalysis(raw: Args): Args {
  const tool = "sarif_trend_analysis";
  const args = { ...raw };
  rename(tool, args, "baseline_sarif", "baseline");
  rename(tool, args, "current_sarif", "current");
  return args;
}

/** The fields of the original's remediation payload (agentmsg.Remediation) and of its tool's arguments. */
const SEED_REMEDIATION = z.looseObject({
  id: text.optional(),
  policy_id: text.optional(),
  skill_id: text.optional(),
  message: text.optional(),
  advice: text.optional(),
  failed_action: text.optional(),
  command: text.optional(),
  file: text.optional(),
  path: text.optional(),
  tool: text.optional(),
  code: text.optional(),
  severity: text.optional(),
  line: position.optional(),
  column: position.optional(),
  principle_ids: z.array(text).optional(),
  next_steps: z.array(text).optional(),
});
const SEED_REMEDIATION_FIELDS = Object.keys(SEED_REMEDIATION.shape).filter((k) => k !== "principle_ids");

/**
 * remediation_explain: the original took one remediation item (`remediation`, its fields also given on their
 * own, the item's winning) where ours takes the whole `agent_remediation` payload; the item becomes a payload
 * of its policy and skill, its action (command or file) and its advice as retry guidance.
 */
function remediationExplain(raw: Args): Args {
  const tool = "remediation_explain";
  const seedKeys = ["remediation", ...SEED_REMEDIATION_FIELDS].filter((k) => k in raw);
  if (seedKeys.length === 0) return raw;
  if ("agent_remediation" in raw)
    throw new InvalidArgumentsError(
      `Invalid arguments for ${tool}: give agent_remediation or seed 002's remediation fields (${seedKeys.join(", ")}), not both`,
    );
  const { remediation, ...loose } = raw;
  const top = valueOf(tool, "arguments", SEED_REMEDIATION, loose);
  const item = { ...top, ...valueOf(tool, "remediation", SEED_REMEDIATION, remediation ?? {}) };
  if (!item.message?.trim() && !item.policy_id?.trim() && !item.skill_id?.trim())
    throw new InvalidArgumentsError(
      `Invalid arguments for ${tool}: the remediation (seed 002) needs a message, policy_id or skill_id`,
    );
  const where = item.path ?? item.file;
  const action = item.command
    ? { kind: "command", command: item.command }
    : where
      ? { kind: "edit", path: where }
      : item.tool
        ? { kind: "tool", tool: item.tool }
        : undefined;
  const retry = [item.advice, ...(item.next_steps ?? [])].filter((s): s is string => !!s?.trim());
  const extra = Object.fromEntries(
    Object.entries(loose).filter(([k]) => !SEED_REMEDIATION_FIELDS.includes(k) && k !== "remediation"),
  );
  return {
    ...extra,
    agent_remediation: {
      policy_ids: item.policy_id ? [item.policy_id] : [],
      ...(item.skill_id && { skill_ids: [item.skill_id] }),
      ...(action && {
        action: {
          ...action,
          ...(item.failed_action && { failed_action: item.failed_action }),
          ...(item.tool && action.kind !== "tool" && { tool: item.tool }),
          ...(item.code && { code: item.code }),
          ...(item.line !== undefined && { line: item.line }),
          ...(item.column !== undefined && { column: item.column }),
        },
      }),
      ...(retry.length && { retry: retry.join(" ") }),
      ...(item.message && { message: item.message }),
      ...(item.severity && { severity: item.severity }),
      ...(item.id && { id: item.id }),
      ...(item.principle_ids?.length && { principle_ids: item.principle_ids }),
    },
  };
}

/** policy_check_command: `provider` (the agent's name, for provider-specific hooks) changes nothing here. */
function policyCheckCommand(raw: Args): Args {
  const args = { ...raw };
  drop("policy_check_command", args, "provider", text);
  return args;
}

/** policy_check_edit: `cwd` is what a relative `path` is relative to; `provider` changes nothing here. */
function policyCheckEdit(raw: Args): Args {
  const tool = "policy_check_edit";
  const args = { ...raw };
  drop(tool, args, "provider", text);
  if ("cwd" in args) {
    const cwd = valueOf(tool, "cwd", text.min(1), args.cwd);
    delete args.cwd;
    if (typeof args.path === "string" && !path.isAbsolute(args.path)) args.path = path.join(cwd, args.path);
  }
  return args;
}

const SEED_002: Record<string, (args: Args) => Args> = {
  lint_check: lintCheck,
  lint_advice: lintAdvice,
  skill_recommend: skillRecommend,
  sarif_trend_analysis: sarifTrendAnalysis,
  remediation_explain: remediationExplain,
  policy_check_command: policyCheckCommand,
  policy_check_edit: policyCheckEdit,
};

/** The tool, taking seed 002's argument names as well when it is one of that server's tools. */
export function withSeed002Aliases(tool: ToolDefinition): ToolDefinition {
  const aliases = SEED_002[tool.name];
  return aliases ? { ...tool, aliases } : tool;
}

/** The tools whose seed 002 names are mapped (for the docs and tests). */
export const SEED_002_ALIASED = Object.keys(SEED_002);
