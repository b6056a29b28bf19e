/**
 * Claude Code PreToolUse hook: reads the hook's JSON from stdin (Bash, Write, Edit, MultiEdit), checks it
 * against the compiled bundle and answers in the hook's output format: `deny` with the reason and the
 * remediation for blocked, `ask` for warn, nothing for allowed. It never fails open: any error denies.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Bundle, CheckOutcome } from "../policy/bundle.js";
import { agentRemediation, checkCommand, checkEdit, type AgentRemediation } from "../policy/checks.js";
import { compileForRoot } from "../policy/runtime.js";

const MAX_STDIN = 16 * 1024 * 1024;
const MAX_FILE = 2 * 1024 * 1024;

interface Payload {
  tool_name?: string;
  cwd?: string;
  tool_input?: Record<string, unknown>;
}

export function decision(kind: "deny" | "ask", reason: string): string {
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: kind,
      permissionDecisionReason: reason,
    },
  });
}

function reasonText(bundle: Bundle, outcome: CheckOutcome, remediation: AgentRemediation | null): string {
  const lines = [`mcp-code-quality policy (${bundle.hash}): ${outcome.status}`];
  for (const v of outcome.violations) {
    lines.push(`- ${v.policy_id} [${v.severity}] ${v.message}`, `  advice: ${v.advice}`);
    if (v.skill_id) lines.push(`  skill: ${v.skill_id} (skill_lookup)`);
  }
  if (remediation) lines.push(`agent_remediation: ${JSON.stringify(remediation)}`);
  return lines.join("\n");
}

/** The current text of a file inside the project (undefined when absent, too big, a link, or outside). */
function currentText(root: string, file: string): string | undefined {
  try {
    const real = fs.realpathSync.native(file);
    if (path.relative(root, real).startsWith("..")) return undefined;
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.size > MAX_FILE) return undefined;
    return fs.readFileSync(real, "utf8");
  } catch {
    return undefined;
  }
}

function replaceText(text: string, oldString: string, newString: string, all: boolean): string {
  if (oldString === "") return text;
  if (all) return text.split(oldString).join(newString);
  const i = text.indexOf(oldString);
  return i === -1 ? text : text.slice(0, i) + newString + text.slice(i + oldString.length);
}

/** Checks one payload; returns the hook's stdout ("" for allowed). */
export async function answerHook(raw: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const payload = JSON.parse(raw) as Payload;
  const root = path.resolve(env.CLAUDE_PROJECT_DIR || payload.cwd || process.cwd());
  const allowLoosening = /^(1|true|yes|on)$/i.test(env.MCP_CODE_QUALITY_POLICY_ALLOW_LOOSENING ?? "");
  const input = payload.tool_input ?? {};
  const tool = payload.tool_name ?? "";
  if (!["Bash", "Write", "Edit", "MultiEdit"].includes(tool)) return "";
  const bundle = await compileForRoot(root, allowLoosening);
  let outcome: CheckOutcome;
  let remediation: AgentRemediation | null;
  if (tool === "Bash") {
    const command = typeof input.command === "string" ? input.command : "";
    const cwd = path.resolve(payload.cwd || root);
    outcome = await checkCommand(bundle, { command }, { cwd, projectRoot: root, home: os.homedir() });
    remediation = agentRemediation(bundle, outcome, { kind: "command", command });
  } else {
    const filePath = typeof input.file_path === "string" ? path.resolve(root, input.file_path) : "";
    if (!filePath) throw new Error(`${tool} payload has no tool_input.file_path`);
    let real = filePath;
    try {
      real = path.join(fs.realpathSync.native(path.dirname(filePath)), path.basename(filePath));
    } catch {
      // a new directory: judged by the path as given
    }
    const inside = !path.relative(fs.realpathSync.native(root), real).startsWith("..");
    const relative = inside
      ? path.relative(fs.realpathSync.native(root), real).split(path.sep).join("/")
      : filePath;
    const before = inside ? currentText(root, real) : undefined;
    let after: string;
    if (tool === "Write") after = typeof input.content === "string" ? input.content : "";
    else {
      const edits =
        tool === "Edit"
          ? [input]
          : Array.isArray(input.edits)
            ? (input.edits as Record<string, unknown>[])
            : [];
      after = before ?? "";
      let fragmentsBefore = "";
      let fragmentsAfter = "";
      for (const e of edits) {
        const o = typeof e.old_string === "string" ? e.old_string : "";
        const n = typeof e.new_string === "string" ? e.new_string : "";
        after = replaceText(after, o, n, e.replace_all === true);
        fragmentsBefore += `${o}\n`;
        fragmentsAfter += `${n}\n`;
      }
      // Without the file (outside, or unreadable) the fragments are what is known of the edit.
      if (before === undefined) {
        outcome = checkEdit(bundle, {
          path: relative,
          before: fragmentsBefore,
          after: fragmentsAfter,
          outsideAllowedPaths: !inside,
        });
        remediation = agentRemediation(bundle, outcome, { kind: "edit", path: relative });
        return render(bundle, outcome, remediation);
      }
    }
    outcome = checkEdit(bundle, { path: relative, before, after, outsideAllowedPaths: !inside });
    remediation = agentRemediation(bundle, outcome, { kind: "edit", path: relative });
  }
  return render(bundle, outcome, remediation);
}

function render(bundle: Bundle, outcome: CheckOutcome, remediation: AgentRemediation | null): string {
  if (outcome.status === "allowed") return "";
  return decision(outcome.status === "blocked" ? "deny" : "ask", reasonText(bundle, outcome, remediation));
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_STDIN) throw new Error(`hook input is larger than ${MAX_STDIN} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** `mcp-code-quality hook claude-code`: always exits 0 with a decision on stdout; errors deny. */
export async function runClaudeCodeHook(): Promise<number> {
  const denyOnError = (err: unknown) => {
    const why = err instanceof Error ? err.message : String(err);
    process.stdout.write(
      decision("deny", `mcp-code-quality policy hook failed, so the call is denied: ${why}`) + "\n",
    );
  };
  process.on("uncaughtException", (err) => {
    denyOnError(err);
    process.exit(0);
  });
  try {
    const out = await answerHook(await readStdin());
    if (out) process.stdout.write(out + "\n");
  } catch (err) {
    denyOnError(err);
  }
  return 0;
}
