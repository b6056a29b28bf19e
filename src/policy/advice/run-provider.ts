/**
 * Running an advice provider: the operator's configuration is checked first (an unknown provider, a missing
 * executable, one inside the allowed paths the agent can edit, or one that needs a network the operator did
 * not allow fail before anything runs), then the adapter's fixed argv runs through the bounded runner in an
 * empty owner-only folder, with its own timeout (the process group is killed) and reply cap, in the provider
 * sandbox (sandbox/plan.ts): the requested files read-only and nothing else of the project, no git, no shell.
 */
import { limitsFrom } from "../../exec/sandbox/launch.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Config } from "../../config.js";
import { ToolError } from "../../errors.js";
import { runBounded, type RunResult } from "../../exec/runner.js";
import { isWithin } from "../../paths/allowlist.js";
import { findProvider, type ProviderAdapter } from "./providers.js";

export interface ConfiguredProvider {
  adapter: ProviderAdapter;
  executable: string;
}

/** The configured provider, checked; undefined when none is configured (local advice). */
export function configuredProvider(
  config: Config,
  allowedRoots: readonly string[],
): ConfiguredProvider | undefined {
  if (!config.adviceProvider) return undefined;
  const adapter = findProvider(config.adviceProvider);
  if (!adapter)
    throw new ToolError("invalid_input", `unsupported advice provider "${config.adviceProvider}"`);
  const executable = config.adviceProviderPath;
  if (!executable || !path.isAbsolute(executable))
    throw new ToolError(
      "invalid_input",
      `advice provider ${adapter.name} has no approved absolute executable path`,
    );
  // A link could be re-pointed after start (config.ts refuses one then): still refused at each call.
  if (fs.lstatSync(executable, { throwIfNoEntry: false })?.isSymbolicLink())
    throw new ToolError(
      "path_validation",
      `advice provider ${adapter.name}: ${executable} is a symbolic link (--advice-provider-path); give the executable itself`,
    );
  let real: string;
  try {
    real = fs.realpathSync.native(executable);
    const st = fs.statSync(real);
    if (!st.isFile()) throw new Error("not a file");
    fs.accessSync(real, fs.constants.X_OK);
  } catch {
    throw new ToolError(
      "tool_not_found",
      `advice provider ${adapter.name}: ${executable} is not an executable file (--advice-provider-path)`,
    );
  }
  // The agent can edit the allowed paths: an executable there is not one the operator approved.
  const inside = allowedRoots.find((root) => isWithin(root, real));
  if (inside)
    throw new ToolError(
      "path_validation",
      `advice provider ${adapter.name}: ${executable} lies inside the allowed path ${inside}, which the agent can ` +
        "edit; approve an executable outside it",
    );
  if (adapter.needsNetwork && !config.adviceAllowNetwork)
    throw new ToolError(
      "invalid_input",
      `advice provider ${adapter.name} needs the network and the operator has not allowed it (--advice-allow-network)`,
    );
  return { adapter, executable };
}

/** The provider keeps its own credentials (HOME, API keys) but not the server's (its HTTP token, settings). */
export function withoutServerSecrets(env: NodeJS.ProcessEnv): Record<string, undefined> {
  return Object.fromEntries(
    Object.keys(env)
      .filter((k) => k.startsWith("MCP_CODE_QUALITY_") || k.startsWith("ESLINT_MCP_"))
      .map((k) => [k, undefined]),
  );
}

export interface ProviderRun {
  run: RunResult;
  /** The argv with the prompt replaced by its size, for traces. */
  argvShown: string[];
}

/** Runs the provider once; a timeout is a result (run.timedOut), not a throw. */
export async function runProvider(
  provider: ConfiguredProvider,
  prompt: string,
  config: Config,
  signal?: AbortSignal,
  /** The files the request names: the only ones its sandbox shows (read-only). */
  files: readonly string[] = [],
): Promise<ProviderRun> {
  const argv = provider.adapter.argv(prompt);
  const argvShown = argv.map((a) => (a === prompt ? `<prompt: ${Buffer.byteLength(prompt)} bytes>` : a));
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-advice-"));
  try {
    fs.chmodSync(cwd, 0o700);
    const run = await runBounded({
      program: provider.executable,
      args: argv,
      cwd,
      timeoutMs: config.adviceTimeout * 1000,
      // One byte more than the cap: a reply that reaches it is over the cap.
      maxOutputBytes: config.adviceMaxOutputBytes + 1,
      killGraceMs: 500,
      env: withoutServerSecrets(process.env),
      signal,
      // No root, no scratch, no git, no shell; the network only when the operator allowed it.
      sandbox: {
        mode: config.sandbox,
        request: { kind: "provider", roots: [], files, network: config.adviceAllowNetwork },
        limits: limitsFrom(config),
      },
    });
    return { run, argvShown };
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}
