/**
 * The two checks the tools and the hooks share: a shell command line, and a proposed file edit, each
 * against a compiled bundle, with the `agent_remediation` payload that remediation_explain expands.
 */
import type { Bundle, CheckOutcome, CheckStatus } from "./bundle.js";
import { commandContext, type CommandSite } from "./command-context.js";
import { editContext, type EditInput } from "./edit-context.js";
import { commandsFromArgv, parseCommandLine } from "./shell.js";

export const MAX_COMMAND_CHARS = 64 * 1024;

export interface CommandCheck extends CheckOutcome {
  /** The simple commands found and checked (after looking through wrappers). */
  commands_checked: number;
  parse_error: boolean;
}

export async function checkCommand(
  bundle: Bundle,
  input: { command?: string; argv?: string[] },
  site: Omit<CommandSite, "parseError">,
): Promise<CommandCheck> {
  const parsed =
    input.argv !== undefined
      ? await commandsFromArgv(input.argv)
      : await parseCommandLine(input.command ?? "");
  const full: CommandSite = { ...site, parseError: parsed.parseError };
  const contexts = parsed.commands.map((c) => ({ context: commandContext(c, full), label: c.text }));
  if (contexts.length === 0)
    contexts.push({
      context: commandContext({ argv: [], env: {}, stdinFrom: "", via: [], text: "" }, full),
      label: "",
    });
  const outcome = bundle.check("command", contexts);
  return { ...outcome, commands_checked: parsed.commands.length, parse_error: parsed.parseError };
}

export function checkEdit(bundle: Bundle, edit: EditInput): CheckOutcome {
  return bundle.check("edit", [{ context: editContext(edit), label: edit.path }]);
}

/** What an agent needs to act on a refusal; remediation_explain expands it. */
export interface AgentRemediation {
  bundle_hash: string;
  status: CheckStatus;
  action: { kind: "command"; command: string } | { kind: "edit"; path: string };
  policy_ids: string[];
  principle_ids: string[];
  skill_ids: string[];
  retry: string;
}

export function agentRemediation(
  bundle: Bundle,
  outcome: CheckOutcome,
  action: AgentRemediation["action"],
): AgentRemediation | null {
  if (outcome.violations.length === 0) return null;
  const uniq = (xs: (string | undefined)[]) => [...new Set(xs.filter((x): x is string => !!x))];
  const tool = action.kind === "command" ? "policy_check_command" : "policy_check_edit";
  return {
    bundle_hash: bundle.hash,
    status: outcome.status,
    action: action.kind === "command" ? { kind: "command", command: action.command.slice(0, 2000) } : action,
    policy_ids: uniq(outcome.violations.map((v) => v.policy_id)),
    principle_ids: uniq(outcome.violations.map((v) => v.principle_id)),
    skill_ids: uniq(outcome.violations.map((v) => v.skill_id)),
    retry:
      outcome.status === "blocked"
        ? `Do not retry the same ${action.kind}. Follow each violation's advice, change the ${action.kind}, and check it again with ${tool}.`
        : `Confirm with the human or follow the advice, then check again with ${tool}.`,
  };
}
