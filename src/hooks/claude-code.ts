/**
 * The Claude Code hook: reads the hook's JSON from stdin, validates it (claude-code-payload.ts), checks a
 * Bash, Write, Edit, MultiEdit or NotebookEdit call against the compiled bundle and answers in the shape of
 * the payload's event (claude-code-answer.ts): deny for blocked, ask for a confirm-level warn and for
 * anything undecided (over the deadline, over a budget), the advice as context for any other warn, nothing
 * for allowed. It never fails open: a malformed call or an error denies, and the installed command line
 * turns any other exit (a crash, a missing dist/ or node_modules) into exit 2, Claude Code's blocking code.
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
import {
  DEFAULT_EVENT,
  eventOfPrefix,
  isJudgedEvent,
  renderAnswer,
  type Verdict,
} from "./claude-code-answer.js";
import { parsePayload, type ParsedPayload, type ToolCall } from "./claude-code-payload.js";

const MAX_STDIN = 16 * 1024 * 1024;
/** How much of a payload's start is searched for its event when the rest cannot be parsed or read. */
const EVENT_PREFIX = 64 * 1024;
/** Larger files are judged by the edit's fragments (and the file's header), not their whole text. */
const MAX_FILE = 16 * 1024 * 1024;
/** The hook answers `ask` by then, whatever is still running (Claude Code lets a timed-out hook's call through). */
export const DEFAULT_DEADLINE_MS = 10_000;

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

/** The verdict on one check: blocked denies, a confirm-level or undecided warn asks, any other warn advises. */
function verdictOf(bundle: Bundle, outcome: CheckOutcome, remediation: AgentRemediation | null): Verdict {
  if (outcome.status === "allowed") return { kind: "allow" };
  const reason = reasonText(bundle, outcome, remediation);
  if (outcome.status === "blocked") return { kind: "deny", reason };
  const confirm = outcome.violations.some(
    (v) =>
      v.severity === "warn" && (v.policy_id.endsWith(".undecidable") || bundle.policy(v.policy_id)?.confirm),
  );
  return { kind: confirm ? "ask" : "advise", reason };
}

/** Checks one payload; returns the hook's stdout in its event's shape ("" for allowed or not judged). */
export async function answerHook(
  raw: string,
  env: NodeJS.ProcessEnv = process.env,
  deadline = Date.now() + DEFAULT_DEADLINE_MS,
): Promise<string> {
  return answerPayload(parsePayload(raw), env, deadline);
}

/** The answer to a parsed payload: nothing for an event or a tool the hook does not judge. */
export async function answerPayload(
  payload: ParsedPayload,
  env: NodeJS.ProcessEnv,
  deadline: number,
): Promise<string> {
  if (!isJudgedEvent(payload.event) || payload.kind === "other") return "";
  if (payload.kind === "invalid")
    return renderAnswer(payload.event, {
      kind: "deny",
      reason: `mcp-code-quality policy hook: the tool call is not what Claude Code sends, so it is denied: ${payload.error}`,
    });
  return renderAnswer(payload.event, await judge(payload.call, payload.cwd, env, deadline));
}

async function judge(
  call: ToolCall,
  payloadCwd: string | undefined,
  env: NodeJS.ProcessEnv,
  deadline: number,
): Promise<Verdict> {
  const root = real(env.CLAUDE_PROJECT_DIR || payloadCwd || process.cwd());
  const allowLoosening = /^(1|true|yes|on)$/i.test(env.MCP_CODE_QUALITY_POLICY_ALLOW_LOOSENING ?? "");
  const bundle = await bundleFor(root, allowLoosening);
  let outcome: CheckOutcome;
  if (call.tool === "Bash") {
    const { command } = call.input;
    const cwd = path.resolve(payloadCwd || root);
    outcome = await checkCommand(
      bundle,
      { command },
      { cwd, projectRoot: root, home: os.homedir(), roots: [root], deadline },
    );
    return verdictOf(bundle, outcome, agentRemediation(bundle, outcome, { kind: "command", command }));
  }
  const filePath = path.resolve(
    root,
    call.tool === "NotebookEdit" ? call.input.notebook_path : call.input.file_path,
  );
  // The edit lands where the filesystem resolves it: through links, at every name of a hard-linked file.
  const resolved = resolveEdit(filePath, [root]);
  const given = resolved.targets[0];
  const inside = given !== undefined && !given.outside;
  const relative = inside ? (given.paths[0] as string) : filePath;
  const before = resolved.file !== undefined ? readText(resolved.file) : undefined;
  const options = { absolute: filePath, roots: [root], deadline };
  const header = resolved.header !== undefined ? { header: resolved.header } : {};
  const edited = (o: CheckOutcome) =>
    verdictOf(bundle, o, agentRemediation(bundle, o, { kind: "edit", path: relative }));
  if (call.tool === "NotebookEdit") {
    // The cell's source before and after: what the content policies read (the notebook's JSON escapes it).
    const { input } = call;
    const cell = notebookCell(before, input);
    const after = input.edit_mode === "delete" ? "" : (input.new_source ?? "");
    outcome = await checkEdit(
      bundle,
      { path: relative, before: cell, after, ...header, outsideAllowedPaths: !inside },
      options,
    );
    return edited(outcome);
  }
  let after: string;
  if (call.tool === "Write") after = call.input.content;
  else {
    const edits = call.tool === "Edit" ? [call.input] : call.input.edits;
    after = before ?? "";
    let fragmentsBefore = "";
    let fragmentsAfter = "";
    for (const e of edits) {
      after = replaceText(after, e.old_string, e.new_string, e.replace_all === true);
      fragmentsBefore += `${e.old_string}\n`;
      fragmentsAfter += `${e.new_string}\n`;
    }
    // Without the file (outside, unreadable, too large) the fragments are what is known of the edit.
    if (before === undefined) {
      outcome = await checkEdit(
        bundle,
        {
          path: relative,
          before: fragmentsBefore,
          after: fragmentsAfter,
          ...header,
          outsideAllowedPaths: !inside,
        },
        options,
      );
      return edited(outcome);
    }
  }
  outcome = await checkEdit(bundle, { path: relative, before, after, outsideAllowedPaths: !inside }, options);
  return edited(outcome);
}

/** The source of the notebook cell an edit replaces or deletes ("" for an insert, or when it is not found). */
function notebookCell(notebook: string | undefined, input: { cell_id?: string; edit_mode?: string }): string {
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

/**
 * The payload, or its first bytes when it is over MAX_STDIN (the rest is not read). `onStart` gets the
 * first EVENT_PREFIX bytes as they arrive, so an answer due before the end (the deadline) knows the event.
 */
async function readStdin(onStart: (prefix: string) => void): Promise<{ text: string; whole: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    if (size < EVENT_PREFIX)
      onStart(
        Buffer.concat([...chunks, chunk as Buffer])
          .subarray(0, EVENT_PREFIX)
          .toString("utf8"),
      );
    size += (chunk as Buffer).length;
    chunks.push(chunk as Buffer);
    if (size > MAX_STDIN)
      return { text: Buffer.concat(chunks).subarray(0, EVENT_PREFIX).toString("utf8"), whole: false };
  }
  return { text: Buffer.concat(chunks).toString("utf8"), whole: true };
}

/** Writes one line to stdout and ends the process with `code` once it is flushed. */
function answerAndExit(line: string, code: number): void {
  process.stdout.write(line ? `${line}\n` : "", () => process.exit(code));
}

/**
 * `mcp-code-quality hook claude-code`: exits 0 with an answer on stdout in the payload's event's shape;
 * errors deny; at the deadline (MCP_CODE_QUALITY_HOOK_DEADLINE_MS, default 10 s) it answers `ask` and
 * exits, whatever is still running.
 */
export async function runClaudeCodeHook(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const deadlineMs =
    Number(env.MCP_CODE_QUALITY_HOOK_DEADLINE_MS) > 0
      ? Number(env.MCP_CODE_QUALITY_HOOK_DEADLINE_MS)
      : DEFAULT_DEADLINE_MS;
  // Every answer, the deadline's and an error's too, is in the shape of the event being answered.
  let event: string = DEFAULT_EVENT;
  let answered = false;
  const once = (line: string) => {
    if (answered) return;
    answered = true;
    answerAndExit(line, 0);
  };
  const denyOnError = (err: unknown) =>
    once(
      renderAnswer(event, {
        kind: "deny",
        reason: `mcp-code-quality policy hook failed, so the call is denied: ${err instanceof Error ? err.message : String(err)}`,
      }),
    );
  process.on("uncaughtException", denyOnError);
  process.on("unhandledRejection", denyOnError);
  const timer = setTimeout(
    () =>
      once(
        renderAnswer(event, {
          kind: "ask",
          reason: `mcp-code-quality policy hook: no decision within ${deadlineMs} ms, so the human is asked`,
        }),
      ),
    deadlineMs,
  );
  try {
    const { text, whole } = await readStdin((prefix) => {
      event = eventOfPrefix(prefix) ?? DEFAULT_EVENT;
    });
    if (!whole) {
      clearTimeout(timer);
      once(
        renderAnswer(event, {
          kind: "ask",
          reason: `mcp-code-quality policy hook: the tool call is larger than ${MAX_STDIN} bytes, so it is not read and the human is asked`,
        }),
      );
      return new Promise<number>(() => undefined);
    }
    const payload = parsePayload(text);
    event = payload.event;
    // The check itself stops a little before the deadline, so its own (undecided) answer comes first.
    const out = await answerPayload(payload, env, Date.now() + Math.max(1, deadlineMs - 250));
    clearTimeout(timer);
    once(out);
  } catch (err) {
    clearTimeout(timer);
    denyOnError(err);
  }
  return new Promise<number>(() => undefined); // answerAndExit ends the process
}
