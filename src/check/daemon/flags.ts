/** `check`'s daemon flags, read before anything else loads. Pure. */
import { DAEMON_ENV } from "./key.js";

export interface DaemonChoice {
  /** "run": through the daemon; "stop" / "status": talk to it and exit; "off": in this process. */
  action: "run" | "stop" | "status" | "off";
  /** The arguments without the daemon flags (what the check itself parses). */
  argv: string[];
}

const FLAGS = new Set(["--daemon", "--no-daemon", "--daemon-stop", "--daemon-status"]);

/** --daemon (or MCP_CODE_QUALITY_CHECK_DAEMON=1) turns it on, --no-daemon off; the last flag wins. */
export function daemonChoice(argv: readonly string[], env: NodeJS.ProcessEnv): DaemonChoice {
  let action: DaemonChoice["action"] = env[DAEMON_ENV] === "1" ? "run" : "off";
  for (const a of argv)
    if (a === "--daemon") action = "run";
    else if (a === "--no-daemon") action = "off";
    else if (a === "--daemon-stop") action = "stop";
    else if (a === "--daemon-status") action = "status";
  const rest = argv.filter((a) => !FLAGS.has(a));
  // Help and joining shards' logs answer at once, in this process: nothing to keep warm.
  if (action === "run" && rest.some((a) => a === "--help" || a === "-h" || a === "--merge-sarif"))
    action = "off";
  return { action, argv: rest };
}

/**
 * `hook pre-commit`'s daemon flags: --daemon (or MCP_CODE_QUALITY_CHECK_DAEMON=1) asks the check daemon to
 * run the hook, --no-daemon runs it in this process; the last wins. Only flags before the hook's own
 * arguments count (after `--files` come file names). The install probe (MCP_CODE_QUALITY_HOOK_PROBE) answers
 * in this process: it asks whether the line is reached, and must start no daemon.
 */
export function hookDaemonChoice(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): { daemon: boolean; argv: string[] } {
  let daemon = env[DAEMON_ENV] === "1";
  let i = 0;
  for (; i < argv.length && (argv[i] === "--daemon" || argv[i] === "--no-daemon"); i++)
    daemon = argv[i] === "--daemon";
  return { daemon: daemon && !env.MCP_CODE_QUALITY_HOOK_PROBE, argv: argv.slice(i) };
}
