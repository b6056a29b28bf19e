/**
 * What a request may not ask of the daemon: anything that weakens what the daemon's own environment sets.
 * Whoever holds the daemon's secret can send it any request; a red team's project code read the secret
 * (through a forged `.git` file) and asked for `check --sandbox off` of another project, whose
 * `eslint.config.js` then ran as root outside any sandbox. So the daemon refuses (refusalOf, at the one place
 * every request enters) a check that turns the sandbox down, names its own allowed paths or audit log, or
 * loosens a limit or a policy, and a `hook pre-commit` whose per-commit variables lift a protection or make
 * git run a program, read other config or write a file; the client runs such a request in its own process
 * instead (the user's own choice, with the user's own access).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { DaemonAsk } from "./protocol.js";

/** Flags a request may not give at all: they widen what tools reach or move what the daemon writes. */
const NEVER = new Set([
  "--allowed-paths",
  "--policy-allow-loosening",
  "--allow-private-links",
  "--advice-provider",
  "--advice-provider-path",
  "--advice-allow-network",
]);

const SANDBOX_RANK: Record<string, number> = { off: 0, auto: 1, required: 2 };

/** Each `--flag value` / `--flag=value` of argv (a flag without a value: ""), until `--`. */
function flagsOf(argv: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "--") break;
    if (!a.startsWith("--")) continue;
    const eq = a.indexOf("=");
    if (eq > 0) out.push([a.slice(0, eq), a.slice(eq + 1)]);
    else {
      const next = argv[i + 1];
      out.push([a, next !== undefined && !next.startsWith("--") ? next : ""]);
    }
  }
  return out;
}

const limit = (v: string | undefined) => {
  const n = Number(v ?? "0");
  return Number.isFinite(n) && n > 0 ? n : 0;
};

/**
 * Why a check request's `argv` would weaken the daemon started with `env`, or undefined when it does not:
 * a sandbox mode below the environment's (`MCP_CODE_QUALITY_SANDBOX`, else auto), the run_tests network back
 * on, a resource limit lifted or raised, a flag in NEVER, or an audit log that is not a `.log`/`.jsonl` file
 * in a folder of the daemon's user (the daemon appends to it as that user: a request's path strings in a
 * shell's startup file would run).
 */
export function weakeningOf(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const own = env.MCP_CODE_QUALITY_SANDBOX ?? "auto";
  for (const [flag, value] of flagsOf(argv)) {
    if (NEVER.has(flag)) return `${flag} (the daemon keeps its own)`;
    if (flag === "--audit-log" && !fitAuditLog(value))
      return `--audit-log ${value} (only a .log or .jsonl file in a folder of the daemon's user)`;
    if (flag === "--sandbox" && (SANDBOX_RANK[value] ?? -1) < (SANDBOX_RANK[own] ?? 1))
      return `--sandbox ${value || "(none)"} (the daemon's is ${own})`;
    if (flag === "--tests-network" && value !== "false" && env.MCP_CODE_QUALITY_TESTS_NETWORK === "false")
      return "--tests-network (the daemon's environment cuts it)";
    for (const [name, variable] of [
      ["--tool-max-cpu-seconds", "MCP_CODE_QUALITY_TOOL_MAX_CPU_SECONDS"],
      ["--tool-max-memory-mb", "MCP_CODE_QUALITY_TOOL_MAX_MEMORY_MB"],
      ["--timeout", "MCP_CODE_QUALITY_TIMEOUT"],
    ] as const) {
      const ownLimit = limit(env[variable]);
      const asked = limit(value);
      if (flag === name && ownLimit > 0 && (asked === 0 || asked > ownLimit))
        return `${flag} ${value} (the daemon's limit is ${ownLimit})`;
    }
  }
  return undefined;
}

function fitAuditLog(file: string): boolean {
  if (!path.isAbsolute(file) || !/\.(log|jsonl)$/.test(file)) return false;
  const st = fs.statSync(path.dirname(file), { throwIfNoEntry: false });
  return st?.isDirectory() === true && st.uid === process.getuid?.();
}

/** Per-commit variables that make git run a program or read config beyond the repository's own. */
const GIT_PROGRAM_OR_CONFIG = new Set([
  "GIT_ASKPASS",
  "GIT_CONFIG",
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_SYSTEM",
  "GIT_EXTERNAL_DIFF",
  "GIT_PAGER",
  "GIT_PROXY_COMMAND",
  "GIT_SEQUENCE_EDITOR",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_TEMPLATE_DIR",
]);

/** The folder of git's own programs, as the daemon's git gives it (once a process; "" without git). */
let ownExecPath: string | undefined;
function gitExecPath(env: NodeJS.ProcessEnv): string {
  if (ownExecPath === undefined)
    try {
      const { GIT_EXEC_PATH: _, ...rest } = env;
      ownExecPath = execFileSync("git", ["--exec-path"], {
        env: rest,
        encoding: "utf8",
        timeout: 5000,
      }).trim();
    } catch {
      ownExecPath = "";
    }
  return ownExecPath;
}

/**
 * Why a hook request's per-commit variables would weaken the daemon started with `env`, or undefined: the
 * human's confirmation for a protected path (MCQ_ALLOW_PROTECTED), or a git variable that runs a program
 * (an editor other than git's own `:`, GIT_SSH_COMMAND...), reads config (GIT_CONFIG_PARAMETERS, which
 * `git -c` sets, GIT_CONFIG_COUNT...: `core.fsmonitor` names a program), runs git's programs from another
 * folder (GIT_EXEC_PATH other than the daemon's git's) or writes a file (GIT_TRACE* naming a path). git sets
 * GIT_INDEX_FILE, GIT_AUTHOR_*, GIT_PREFIX, GIT_EDITOR=: and its GIT_EXEC_PATH for a commit: those pass.
 */
export function perCommitWeakening(
  perCommit: Readonly<Record<string, string>>,
  env: NodeJS.ProcessEnv,
): string | undefined {
  for (const [name, value] of Object.entries(perCommit)) {
    if (name === "MCQ_ALLOW_PROTECTED" && value !== "")
      return `${name} (the human's confirmation is given in the hook's own process)`;
    if (
      GIT_PROGRAM_OR_CONFIG.has(name) ||
      name.startsWith("GIT_CONFIG_KEY_") ||
      name.startsWith("GIT_CONFIG_VALUE_") ||
      (name === "GIT_EDITOR" && value !== ":") ||
      (name.startsWith("GIT_TRACE") && value.includes("/"))
    )
      return `${name} (git would run a program, read other config or write a file with it)`;
    if (name === "GIT_EXEC_PATH" && path.resolve(value) !== gitExecPath(env))
      return `${name}=${value} (not the folder of the daemon's git)`;
  }
  return undefined;
}

/**
 * Why the daemon started with `env` refuses `ask`, whatever its kind, or undefined when it serves it: the
 * one test every request passes (server.ts), and the one a client makes before it asks (client.ts).
 */
export function refusalOf(ask: DaemonAsk, env: NodeJS.ProcessEnv): string | undefined {
  switch (ask.type) {
    case "check":
      return weakeningOf(ask.argv, env);
    case "pre-commit": {
      // The hook's own flags come before `--files` (after it, file names): none may weaken it either.
      const files = ask.argv.indexOf("--files");
      return (
        weakeningOf(files < 0 ? ask.argv : ask.argv.slice(0, files), env) ?? perCommitWeakening(ask.env, env)
      );
    }
    case "stop":
    case "status":
      return undefined;
  }
}
