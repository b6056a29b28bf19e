/**
 * A provider's advice screened by the same policies that guard the agent, before the agent sees it: a step
 * or command that a hook would block (`--no-verify`, `HUSKY=0`, force pushes, raw linters), text that would
 * be a blocked edit (a bare `# noqa`, `eslint-disable` without a rule, a secret, a weakened config), advice
 * to ignore or disable the rule, policy ids the bundle does not know, and a rerun that is not a lint-family
 * call on the finding's own files. Any of them refuses the reply, naming the policy.
 */
import type { Bundle } from "../bundle.js";
import { checkCommand, checkEdit } from "../checks.js";
import type { AdviceReply } from "./reply.js";

/** The tools a rerun may call: they check, and change nothing. */
export const RERUN_TOOLS = new Set(["lint_check", "lint", "type_check", "format_check", "security_scan"]);
const RERUN_ARGUMENTS = new Set([
  "path",
  "files",
  "linter",
  "tool",
  "checker",
  "scope",
  "only",
  "except",
  "formatter",
  "severity",
  "confidence",
]);
/** Advice to make the diagnostic go away rather than fix it. */
const IGNORE_ADVICE =
  /\b(ignore|disable|suppress|silence|skip|turn off|switch off|mute|whitelist|allowlist)\b[^.\n]{0,60}\b(rules?|warnings?|lint(er)?|checks?|diagnostics?|hooks?|errors?|findings?|type checker|F\d{3,4}|E\d{3,4})\b/i;
/** Bypass spellings a prose step can carry outside a command. */
const BYPASS_WORDS =
  /(--no-ver\w*|\bHUSKY=0\b|\bHUSKY_SKIP_HOOKS\b|core\.hooks?path|\bSKIP=\S|--no-gpg-sign|-c\s+core\.)/i;

export interface ScreenContext {
  bundle: Bundle;
  /** Policy ids the request was grounded on (always acceptable in the reply). */
  grounded: readonly string[];
  /** Display paths the rerun may name: the finding's file and the files asked about. */
  files: readonly string[];
  /** Where commands in the advice would run. */
  site: { cwd: string; projectRoot: string; home: string };
}

export type Screened = { ok: true } | { ok: false; policy_id?: string; reason: string };

/** Code in the advice: `inline spans` and fenced blocks, each line of a block on its own. */
function codeOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)) out.push(...(m[1] as string).split("\n"));
  for (const m of text.replace(/```[\s\S]*?```/g, "").matchAll(/`([^`\n]+)`/g)) out.push(m[1] as string);
  // A command written in prose: "run git commit --no-verify to ...".
  for (const m of text.matchAll(
    /\b((?:sudo\s+)?(?:git|rm|chmod|curl|wget|npx|ruff|eslint|mypy|pytest|HUSKY=\S+\s+git)\s[^`\n.;]*)/g,
  ))
    out.push(m[1] as string);
  return out.map((c) => c.trim()).filter((c) => c !== "" && c.length < 4000);
}

const norm = (p: string) => p.replace(/^\.\//, "").replace(/\/+$/, "");

/** Screens one reply; the first problem found refuses it. */
export async function screenAdvice(reply: AdviceReply, ctx: ScreenContext): Promise<Screened> {
  for (const id of reply.policy_ids)
    if (!ctx.grounded.includes(id) && !ctx.bundle.policy(id))
      return {
        ok: false,
        reason: `the reply names policy ${JSON.stringify(id)}, which bundle ${ctx.bundle.hash} does not have`,
      };

  const { tool, arguments: args } = reply.rerun;
  if (!RERUN_TOOLS.has(tool))
    return {
      ok: false,
      reason: `the reply's rerun calls ${tool}; a rerun must be a lint-family call (${[...RERUN_TOOLS].join(", ")}) on the finding's files`,
    };
  const extra = Object.keys(args).filter((k) => !RERUN_ARGUMENTS.has(k));
  if (extra.length)
    return {
      ok: false,
      reason: `the reply's rerun passes ${extra.join(", ")}, which a lint rerun does not take`,
    };
  const named = [
    ...(typeof args.path === "string" ? [args.path] : []),
    ...(Array.isArray(args.files) ? args.files.filter((f): f is string => typeof f === "string") : []),
  ];
  if (args.files !== undefined && !Array.isArray(args.files))
    return { ok: false, reason: "the reply's rerun files is not a list" };
  const allowed = new Set(ctx.files.map(norm));
  const stray = named.filter((p) => !allowed.has(norm(p)));
  if (stray.length)
    return {
      ok: false,
      reason: `the reply's rerun names ${stray.join(", ")}; it must check the finding's own files (${[...allowed].join(", ")})`,
    };

  const text = [reply.summary, ...reply.steps, ...reply.risks].join("\n");
  const ignoring = IGNORE_ADVICE.exec(text);
  if (ignoring)
    return {
      ok: false,
      policy_id: "suppress.broad",
      reason: `the advice says to ${ignoring[0]}: diagnostics are fixed, not ignored`,
    };
  const bypass = BYPASS_WORDS.exec(text);
  if (bypass)
    return {
      ok: false,
      policy_id: "hooks.no_verify",
      reason: `the advice mentions ${bypass[0]}, a way around the project's hooks`,
    };

  for (const command of codeOf(text)) {
    const outcome = await checkCommand(
      ctx.bundle,
      { command },
      { ...ctx.site, gitConfig: () => null, roots: [ctx.site.projectRoot] },
    );
    const v = outcome.violations.find(
      (x) => x.severity !== "advice" && x.policy_id !== "command.undecidable",
    );
    if (v)
      return {
        ok: false,
        policy_id: v.policy_id,
        reason: `the advice's ${JSON.stringify(command.slice(0, 200))} is refused by ${v.policy_id}: ${v.message}`,
      };
  }
  // As an edit adding the advice's text (to the finding's file): what its content, not its path, would raise.
  const path = ctx.files[0] ?? "advice.txt";
  const withText = await checkEdit(ctx.bundle, { path, before: "", after: text }, { resolve: false });
  const empty = await checkEdit(ctx.bundle, { path, before: "", after: "" }, { resolve: false });
  const byPath = new Set(empty.violations.map((v) => v.policy_id));
  const v = withText.violations.find(
    (x) => x.severity !== "advice" && !byPath.has(x.policy_id) && !x.policy_id.endsWith(".undecidable"),
  );
  if (v)
    return {
      ok: false,
      policy_id: v.policy_id,
      reason: `the advice would be refused by ${v.policy_id}: ${v.message}`,
    };
  return { ok: true };
}
