/**
 * What a check request may not ask of the daemon: anything that weakens what the daemon's own environment
 * sets. Whoever holds the daemon's secret can send it any argv; a red team's project code read the secret
 * (through a forged `.git` file) and asked for `check --sandbox off` of another project, whose
 * `eslint.config.js` then ran as root outside any sandbox. So the daemon refuses a request that turns the
 * sandbox down, names its own allowed paths or audit log, or loosens a limit or a policy; the client runs such
 * a check in its own process instead (the user's own choice, with the user's own access).
 */
import fs from "node:fs";
import path from "node:path";

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
