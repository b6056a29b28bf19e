/** Versions of the executables that ran, asked once per server and executable (for SARIF's driver). */
import type { ToolContext } from "../engine/tool.js";
import { recallProbe, rememberableIdentity, rememberProbe } from "../exec/probe-memo.js";
import { findExecutable } from "../exec/which.js";
import { externalTools, firstVersion } from "./registry.js";

/** `executable ...args`'s version, cached; undefined when it gives none. */
export async function cachedVersion(
  ctx: ToolContext,
  executable: string,
  args: readonly string[] = ["--version"],
  parse: (output: string) => string | undefined = firstVersion,
): Promise<string | undefined> {
  const cache = ctx.services.get("tool-versions", () => new Map<string, Promise<string | undefined>>());
  // By the file that runs: `ruff` found on PATH and the same ruff named by its path are asked once.
  const key = `${findExecutable(executable) ?? executable}\0${args.join("\0")}`;
  let version = cache.get(key);
  if (!version) {
    version = askVersion(ctx, executable, args).then((output) =>
      output === undefined ? undefined : parse(output),
    );
    cache.set(key, version);
  }
  return version;
}

/**
 * What `executable ...args` prints, remembered on disk for a native executable (probe-memo.ts): a fresh
 * process does not start ruff or bwrap again to learn what the same file said before.
 */
async function askVersion(
  ctx: ToolContext,
  executable: string,
  args: readonly string[],
): Promise<string | undefined> {
  const found = findExecutable(executable);
  const identity = found ? rememberableIdentity(found) : undefined;
  const memoKey = identity ? ["version", identity, ...args] : undefined;
  const remembered = memoKey ? recallProbe<string>(memoKey) : undefined;
  if (remembered !== undefined) return remembered;
  try {
    const run = await ctx.run({ program: executable, args: [...args], timeoutMs: 10_000 });
    const output = `${run.stdout}\n${run.stderr}`;
    if (memoKey && run.returncode === 0 && !run.timedOut) rememberProbe(memoKey, output.slice(0, 4096));
    return output;
  } catch {
    return undefined;
  }
}

/** The version of a tool registered for get_status, by name (the PATH copy); undefined when unknown. */
export function registeredVersion(ctx: ToolContext, name: string): Promise<string | undefined> {
  const tool = externalTools().find((t) => t.name === name);
  if (!tool) return Promise.resolve(undefined);
  if (tool.versionFrom) return registeredVersion(ctx, tool.versionFrom);
  return cachedVersion(ctx, tool.program, tool.versionArgs, tool.parseVersion);
}
