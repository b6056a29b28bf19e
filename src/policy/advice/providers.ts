/**
 * The advice providers: one first-class adapter per agent CLI, each a fixed argv shape with the prompt in its
 * one place, the output format it is asked for, and how its reply text is taken out of that output. Pure:
 * running them is run-provider.ts's job. Every hosted provider needs the network to reach its model.
 *
 * Flags, from each CLI's documentation of its non-interactive mode:
 * - claude: `-p` (print mode), `--output-format json` (one `{type: "result", is_error, result}` object),
 *   `--tools ""` (no tool at all: text only), `--max-turns 1`, `--strict-mcp-config` (no MCP servers),
 *   `--no-session-persistence`.
 * - codex: `codex exec` prints only the final agent message on stdout; `--sandbox read-only`,
 *   `--skip-git-repo-check` (it runs in an empty folder), `--ephemeral` (no session files), `--color never`.
 * - gemini: `--prompt` (headless), `--output-format json` (`{response, stats, error?}`), `--approval-mode
 *   default` (no tool call is auto-approved).
 */
import type { ADVICE_PROVIDERS } from "../../config.js";

export type ProviderName = (typeof ADVICE_PROVIDERS)[number];

export interface ProviderAdapter {
  name: ProviderName;
  /** The whole argv after the executable; the prompt is one entry, never split or interpreted. */
  argv(prompt: string): string[];
  outputFormat: "json" | "text";
  needsNetwork: boolean;
  /** The model's reply text from the CLI's stdout; throws an Error saying why there is none. */
  replyText(stdout: string): string;
}

function jsonObject(stdout: string, provider: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(stdout.trim());
  } catch (err) {
    throw new Error(
      `${provider} output is not the JSON it was asked for: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new Error(`${provider} output is not a JSON object`);
  return value as Record<string, unknown>;
}

const claude: ProviderAdapter = {
  name: "claude",
  argv: (prompt) => [
    "-p",
    "--output-format",
    "json",
    "--max-turns",
    "1",
    "--no-session-persistence",
    "--strict-mcp-config",
    "--tools",
    "",
    "--",
    prompt,
  ],
  outputFormat: "json",
  needsNetwork: true,
  replyText(stdout) {
    const out = jsonObject(stdout, "claude");
    if (out.is_error === true || typeof out.result !== "string")
      throw new Error(`claude reported no result (subtype ${String(out.subtype)})`);
    return out.result;
  },
};

const codex: ProviderAdapter = {
  name: "codex",
  argv: (prompt) => [
    "exec",
    "--sandbox",
    "read-only",
    "--skip-git-repo-check",
    "--ephemeral",
    "--color",
    "never",
    "--",
    prompt,
  ],
  outputFormat: "text",
  needsNetwork: true,
  replyText(stdout) {
    if (!stdout.trim()) throw new Error("codex printed no final message");
    return stdout;
  },
};

const gemini: ProviderAdapter = {
  name: "gemini",
  argv: (prompt) => ["--output-format", "json", "--approval-mode", "default", "--prompt", prompt],
  outputFormat: "json",
  needsNetwork: true,
  replyText(stdout) {
    const out = jsonObject(stdout, "gemini");
    if (out.error) throw new Error(`gemini reported an error: ${JSON.stringify(out.error).slice(0, 500)}`);
    if (typeof out.response !== "string") throw new Error("gemini output has no response");
    return out.response;
  },
};

export const PROVIDERS: Record<ProviderName, ProviderAdapter> = { claude, codex, gemini };

export function findProvider(name: string): ProviderAdapter | undefined {
  return Object.hasOwn(PROVIDERS, name) ? PROVIDERS[name as ProviderName] : undefined;
}
