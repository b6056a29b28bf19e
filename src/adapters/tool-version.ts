/** Versions of the executables that ran, asked once per server and executable (for SARIF's driver). */
import type { ToolContext } from "../engine/tool.js";
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
    version = ctx
      .run({ program: executable, args: [...args], timeoutMs: 10_000 })
      .then((run) => parse(`${run.stdout}\n${run.stderr}`))
      .catch(() => undefined);
    cache.set(key, version);
  }
  return version;
}

/** The version of a tool registered for get_status, by name (the PATH copy); undefined when unknown. */
export function registeredVersion(ctx: ToolContext, name: string): Promise<string | undefined> {
  const tool = externalTools().find((t) => t.name === name);
  if (!tool) return Promise.resolve(undefined);
  if (tool.versionFrom) return registeredVersion(ctx, tool.versionFrom);
  return cachedVersion(ctx, tool.program, tool.versionArgs, tool.parseVersion);
}
