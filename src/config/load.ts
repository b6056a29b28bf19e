/** The server's Config from its command line, the environment and the defaults, checked once at start. */
import fs from "node:fs";
import path from "node:path";
import { parseCommandLine, type CommandLine } from "../cli/args.js";
import { OPTIONS } from "./options.js";
import type { Config } from "./types.js";
import { ConfigError } from "./values.js";

/** The server's command line: every option takes a value. */
export const SERVER_COMMAND_LINE: CommandLine = { name: "mcp-code-quality", flags: OPTIONS };

/**
 * Builds a Config from `--flag value` / `--flag=value` arguments and the environment.
 * Flags win over environment variables, which win over defaults. Throws ConfigError (a UsageError) on any
 * bad flag or value.
 */
export function loadConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Config {
  const { values } = parseCommandLine(SERVER_COMMAND_LINE, argv);
  const given = new Map<string, string>(
    Object.entries(values).flatMap(([name, v]) => (typeof v === "string" ? [[`--${name}`, v] as const] : [])),
  );
  const config: Partial<Record<keyof Config, unknown>> = { cwd };
  for (const spec of OPTIONS) {
    const fromFlag = given.get(spec.flag);
    const envName = spec.env?.find((name) => env[name] !== undefined && env[name] !== "");
    if (fromFlag !== undefined) config[spec.key] = spec.parse(fromFlag, spec.flag);
    else if (envName) config[spec.key] = spec.parse(env[envName] as string, `${spec.flag} (from ${envName})`);
    else config[spec.key] = spec.fallback(cwd);
  }
  // seed 001's colon-separated allowlist variable adds roots.
  if (env.ESLINT_MCP_ALLOW_DIRS && !given.has("--allowed-paths") && !env.MCP_CODE_QUALITY_ALLOWED_PATHS) {
    const extra = env.ESLINT_MCP_ALLOW_DIRS.split(":").filter(Boolean);
    config.allowedPaths = [cwd, ...extra];
  }
  const c = config as Config;
  if (c.adviceProvider && !c.adviceProviderPath)
    throw new ConfigError(
      "--advice-provider-path",
      `--advice-provider ${c.adviceProvider} needs the approved executable path`,
    );
  if (c.remoteCacheUrl) {
    const need: [keyof Config, string][] = [
      ["remoteCacheToken", "--remote-cache-token"],
      ["remoteCacheTeam", "--remote-cache-team"],
      ["remoteCacheSecret", "--remote-cache-secret"],
    ];
    for (const [key, flag] of need)
      if (!c[key]) throw new ConfigError(flag, `--remote-cache-url needs ${flag} as well`);
  }
  c.allowedPaths = c.allowedPaths.map((p) => path.resolve(cwd, p));
  c.auditLog = path.resolve(cwd, c.auditLog);
  if (c.adviceProvider && c.adviceProviderPath) {
    const refused = providerPathProblem(c.adviceProviderPath, c.allowedPaths);
    if (refused) throw new ConfigError("--advice-provider-path", refused);
  }
  return c;
}

/**
 * Why an advice provider's executable is not one the operator can approve: it must exist, be an executable
 * regular file that is not a symbolic link (an agent could re-point a link), and lie outside the allowed
 * paths (the agent can edit those). Checked at start, so a bad path stops the server, not the first call.
 */
export function providerPathProblem(executable: string, allowedPaths: readonly string[]): string | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(executable);
  } catch {
    return `${executable} does not exist`;
  }
  if (st.isSymbolicLink()) return `${executable} is a symbolic link; give the executable itself`;
  if (!st.isFile()) return `${executable} is not a regular file`;
  try {
    fs.accessSync(executable, fs.constants.X_OK);
  } catch {
    return `${executable} is not executable`;
  }
  const real = (p: string) => {
    try {
      return fs.realpathSync.native(p);
    } catch {
      return path.resolve(p);
    }
  };
  const file = real(executable);
  const inside = allowedPaths
    .map(real)
    .find((root) => file === root || file.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
  if (inside)
    return `${executable} lies inside the allowed path ${inside}, which the agent can edit; approve an executable outside it`;
  return undefined;
}
