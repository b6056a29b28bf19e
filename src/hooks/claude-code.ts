/**
 * Claude Code PreToolUse hook: reads the hook's JSON from stdin (Bash, Write, Edit, MultiEdit, NotebookEdit), checks it
 * against the compiled bundle and answers in the hook's output format: `deny` with the reason and the
 * remediation for blocked, `ask` for warn (and for anything undecided: over the deadline, over a budget),
 * nothing for allowed. It never fails open: an error denies, and the installed command line turns any
 * other exit (a crash, a missing dist/ or node_modules) into exit 2, Claude Code's blocking code.
 *
 * Loads only what the decision needs: the shipped bundle from its build snapshot, conditions compiled on
 * first use, the shell parser only for Bash, secretlint only for edits.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Bundle, CheckOutcome } from "../policy/bundle.js";
import { agentRemediation, checkCommand, checkEdit, type AgentRemediation } from "../policy/checks.js";
import { compileBundle, PROJECT_POLICY_FILE } from "../policy/compile.js";
import { resolveEdit } from "../policy/edit-targets.js";

const MAX_STDIN = 16 * 1024 * 1024;
/** Every tool Claude Code edits files with (the installed matcher names the same). */
export const EDITING_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit"];
/** Larger files are judged by the edit's fragments (and the file's header), not their whole text. */
const MAX_FILE = 16 * 1024 * 1024;
/** The hook answers `ask` by then, whatever is still running (Claude Code lets a timed-out hook's call through). */
export const DEFAULT_DEADLINE_MS = 10_000;

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
    if (v.matched && v.policy_id.endsWith(".undecidable")) lines.push(`  why: ${v.matched}`);
    if (v.skill_id) lines.push(`  skill: ${v.skill_id} (skill_lookup)`);
  }
  if (remediation) lines.push(`agent_remediation: ${JSON.stringify(remediation)}`);
  return lines.join("\n");
}

/** A file's text when it is a regular file within the size cap (undefined otherwise). */
function readText(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > MAX_FILE) return undefined;
    return fs.readFileSync(fd, "utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function replaceText(text: string, oldString: string, newString: string, all: boolean): string {
  if (oldString === "") return text;
  if (all) return text.split(oldString).join(newString);
  const i = text.indexOf(oldString);
  return i === -1 ? text : text.slice(0, i) + newString + text.slice(i + oldString.length);
}

/** The project's bundle: the shipped snapshot (conditions compiled as needed), with its policy file if any. */
async function bundleFor(root: string, allowLoosening: boolean): Promise<Bundle> {
  const dir = path.join(root, path.dirname(PROJECT_POLICY_FILE));
  let projectFile: string | undefined;
  try {
    if (fs.lstatSync(dir).isDirectory()) projectFile = path.join(root, PROJECT_POLICY_FILE);
  } catch {
    // no project policy folder
  }
  const exists = projectFile !== undefined && fs.existsSync(projectFile);
  return compileBundle({ ...(exists ? { projectFile } : {}), allowLoosening, lazy: true });
}

function real(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

/** Checks one payload; returns the hook's stdout ("" for allowed). */
export async function answerHook(
  raw: string,
  env: NodeJS.ProcessEnv = process.env,
  deadline = Date.now() + DEFAULT_DEADLINE_MS,
): Promise<string> {
  const payload = JSON.parse(raw) as Payload;
  const tool = payload.tool_name ?? "";
  if (!EDITING_TOOLS.includes(tool) && tool !== "Bash") return "";
  const root = real(env.CLAUDE_PROJECT_DIR || payload.cwd || process.cwd());
  const allowLoosening = /^(1|true|yes|on)$/i.test(env.MCP_CODE_QUALITY_POLICY_ALLOW_LOOSENING ?? "");
  const input = payload.tool_input ?? {};
  const bundle = await bundleFor(root, allowLoosening);
  let outcome: CheckOutcome;
  let remediation: AgentRemediation | null;
  if (tool === "Bash") {
    const command = typeof input.command === "string" ? input.command : "";
    const cwd = path.resolve(payload.cwd || root);
    outcome = await checkCommand(
      bundle,
      { command },
      { cwd, projectRoot: root, home: os.homedir(), roots: [root], deadline },
    );
    remediation = agentRemediation(bundle, outcome, { kind: "command", command });
    return render(bundle, outcome, remediation);
  }
  const named = tool === "NotebookEdit" ? input.notebook_path : input.file_path;
  const filePath = typeof named === "string" ? path.resolve(root, named) : "";
  if (!filePath) throw new Error(`${tool} payload has no tool_input.file_path`);
  // The edit lands where the filesystem resolves it: through links, at every name of a hard-linked file.
  const resolved = resolveEdit(filePath, [root]);
  const given = resolved.targets[0];
  const inside = given !== undefined && !given.outside;
  const relative = inside ? (given.paths[0] as string) : filePath;
  const before = resolved.file !== undefined ? readText(resolved.file) : undefined;
  const options = { absolute: filePath, roots: [root], deadline };
  let after: string;
  if (tool === "NotebookEdit") {
    // The cell's source before and after: what the content policies read (the notebook's JSON escapes it).
    const cell = notebookCell(before, input);
    outcome = await checkEdit(
      bundle,
      {
        path: relative,
        before: cell,
        after:
          input.edit_mode === "delete" ? "" : typeof input.new_source === "string" ? input.new_source : "",
        ...(resolved.header !== undefined ? { header: resolved.header } : {}),
        outsideAllowedPaths: !inside,
      },
      options,
    );
    remediation = agentRemediation(bundle, outcome, { kind: "edit", path: relative });
    return render(bundle, outcome, remediation);
  }
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
    // Without the file (outside, unreadable, too large) the fragments are what is known of the edit.
    if (before === undefined) {
      outcome = await checkEdit(
        bundle,
        {
          path: relative,
          before: fragmentsBefore,
          after: fragmentsAfter,
          ...(resolved.header !== undefined ? { header: resolved.header } : {}),
          outsideAllowedPaths: !inside,
        },
        options,
      );
      remediation = agentRemediation(bundle, outcome, { kind: "edit", path: relative });
      return render(bundle, outcome, remediation);
    }
  }
  outcome = await checkEdit(bundle, { path: relative, before, after, outsideAllowedPaths: !inside }, options);
  remediation = agentRemediation(bundle, outcome, { kind: "edit", path: relative });
  return render(bundle, outcome, remediation);
}

/** The source of the notebook cell an edit replaces or deletes ("" for an insert, or when it is not found). */
function notebookCell(notebook: string | undefined, input: Record<string, unknown>): string {
  if (notebook === undefined || input.edit_mode === "insert") return "";
  try {
    const cells =
      (JSON.parse(notebook) as { cells?: { id?: string; source?: string | string[] }[] }).cells ?? [];
    const id = input.cell_id;
    const cell =
      typeof id === "string"
        ? (cells.find((c) => c.id === id) ?? (/^\d+$/.test(id) ? cells[Number(id)] : undefined))
        : cells[0];
    const source = cell?.source ?? "";
    return Array.isArray(source) ? source.join("") : source;
  } catch {
    return "";
  }
}

function render(bundle: Bundle, outcome: CheckOutcome, remediation: AgentRemediation | null): string {
  if (outcome.status === "allowed") return "";
  return decision(outcome.status === "blocked" ? "deny" : "ask", reasonText(bundle, outcome, remediation));
}

/** The payload, or undefined when it is over MAX_STDIN (the rest is not read). */
async function readStdin(): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_STDIN) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Writes one line to stdout and ends the process with `code` once it is flushed. */
function answerAndExit(line: string, code: number): void {
  process.stdout.write(line ? `${line}\n` : "", () => process.exit(code));
}

/**
 * `mcp-code-quality hook claude-code`: exits 0 with a decision on stdout; errors deny; at the deadline
 * (MCP_CODE_QUALITY_HOOK_DEADLINE_MS, default 10 s) it answers `ask` and exits, whatever is still running.
 */
export async function runClaudeCodeHook(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const deadlineMs =
    Number(env.MCP_CODE_QUALITY_HOOK_DEADLINE_MS) > 0
      ? Number(env.MCP_CODE_QUALITY_HOOK_DEADLINE_MS)
      : DEFAULT_DEADLINE_MS;
  let answered = false;
  const once = (line: string) => {
    if (answered) return;
    answered = true;
    answerAndExit(line, 0);
  };
  const denyOnError = (err: unknown) =>
    once(
      decision(
        "deny",
        `mcp-code-quality policy hook failed, so the call is denied: ${err instanceof Error ? err.message : String(err)}`,
      ),
    );
  process.on("uncaughtException", denyOnError);
  process.on("unhandledRejection", denyOnError);
  const timer = setTimeout(
    () =>
      once(
        decision(
          "ask",
          `mcp-code-quality policy hook: no decision within ${deadlineMs} ms, so the human is asked`,
        ),
      ),
    deadlineMs,
  );
  try {
    const raw = await readStdin();
    if (raw === undefined) {
      clearTimeout(timer);
      once(
        decision(
          "ask",
          `mcp-code-quality policy hook: the tool call is larger than ${MAX_STDIN} bytes, so it is not read and the human is asked`,
        ),
      );
      return new Promise<number>(() => undefined);
    }
    // The check itself stops a little before the deadline, so its own (undecided) answer comes first.
    const out = await answerHook(raw, env, Date.now() + Math.max(1, deadlineMs - 250));
    clearTimeout(timer);
    once(out);
  } catch (err) {
    clearTimeout(timer);
    denyOnError(err);
  }
  return new Promise<number>(() => undefined); // answerAndExit ends the process
}
