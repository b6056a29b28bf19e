/**
 * The configuration one git run is under beyond its repository's: `-c key=value`, GIT_CONFIG_PARAMETERS and
 * GIT_CONFIG_COUNT, and the config files its environment (or `-c include.path`) points at, read from the
 * line when the line wrote them, else asked of git (the lookup it is given).
 */
import path from "node:path";
import { configKey, parseConfigParameters, parseGitConfig } from "./config-formats.js";
import type { GitInvocation, ParseState } from "./invocation.js";

export function setConfig(inv: GitInvocation, pair: string): void {
  const eq = pair.indexOf("=");
  inv.config[configKey(eq === -1 ? pair : pair.slice(0, eq))] = eq === -1 ? "true" : pair.slice(eq + 1);
}

/** GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n. */
export function readEnvConfig(inv: GitInvocation, env: Record<string, string>): void {
  if (env.GIT_CONFIG_PARAMETERS)
    for (const [k, v] of parseConfigParameters(env.GIT_CONFIG_PARAMETERS)) inv.config[configKey(k)] = v;
  const count = Number(env.GIT_CONFIG_COUNT);
  for (const [name, key] of Object.entries(env)) {
    const m = /^GIT_CONFIG_KEY_(\d+)$/.exec(name);
    // git reads 0..COUNT-1; when COUNT is not a static number every pair may count.
    if (m && (!Number.isInteger(count) || Number(m[1]) < count))
      inv.config[configKey(key)] = env[`GIT_CONFIG_VALUE_${m[1]}`] ?? "";
  }
}

/** The config files a run reads that its environment (or `-c include.path`) points at. */
function configFilesOf(inv: GitInvocation, env: Record<string, string>, cwd: string | undefined): string[] {
  const at = (p: string | undefined) =>
    p === undefined || p === ""
      ? undefined
      : path.isAbsolute(p)
        ? p
        : cwd === undefined
          ? undefined
          : path.resolve(cwd, p);
  const files = [
    at(env.GIT_CONFIG_GLOBAL),
    at(env.GIT_CONFIG_SYSTEM),
    at(env.GIT_CONFIG),
    env.HOME !== undefined ? at(path.join(env.HOME, ".gitconfig")) : undefined,
    env.XDG_CONFIG_HOME !== undefined ? at(path.join(env.XDG_CONFIG_HOME, "git", "config")) : undefined,
    env.GIT_DIR !== undefined ? at(path.join(env.GIT_DIR, "config")) : undefined,
  ];
  for (const [k, v] of Object.entries(inv.config))
    if (k === "include.path" || /^includeif\..+\.path$/.test(k))
      files.push(at(v.replace(/^~(?=\/)/, env.HOME ?? "~")));
  return files.filter((f): f is string => f !== undefined);
}

/** The environment that decides which configuration files git reads (and so where core.hooksPath comes from). */
const CONFIG_LOCATION_VARS = [
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG",
  "HOME",
  "XDG_CONFIG_HOME",
  "GIT_DIR",
];

/**
 * Configuration from files the run is pointed at: a file the line itself wrote is read from the line
 * (`printf '[core]\\n\\thooksPath=/dev/null' > /tmp/g && GIT_CONFIG_GLOBAL=/tmp/g git commit`); one on disk is
 * asked of git with that environment, for the keys the policies read (core.hooksPath).
 */
export function readConfigFiles(
  inv: GitInvocation,
  env: Record<string, string>,
  cwd: string | undefined,
  state: ParseState,
): void {
  const dynamic = CONFIG_LOCATION_VARS.find(
    (k) => env[k] !== undefined && /[$`]|[<>]\(/.test(env[k] as string),
  );
  if (dynamic)
    inv.undecided ||= `git reads its configuration through ${dynamic}, which is only known when the line runs`;
  const files = configFilesOf(inv, env, cwd);
  if (files.length === 0) return;
  let fromDisk = false;
  for (const file of files) {
    const written = state.around.files?.get(file);
    if (written === undefined) {
      fromDisk = true;
      continue;
    }
    if (written.text === undefined) {
      inv.undecided ||= `git reads its configuration from ${file}, which ${written.producer} wrote earlier in the line`;
      continue;
    }
    for (const [k, v] of parseGitConfig(written.text)) if (!(k in inv.config)) inv.config[k] = v;
  }
  if (
    fromDisk &&
    !("core.hookspath" in inv.config) &&
    CONFIG_LOCATION_VARS.some((k) => env[k] !== undefined)
  ) {
    const given = state.lookup("core.hookspath", cwd, env);
    const usual = state.lookup("core.hookspath", cwd, {});
    if (given === undefined)
      inv.undecided ||= "git's configuration could not be read with the environment the line gives it";
    else if (given !== null && given !== usual) inv.config["core.hookspath"] = given;
  }
  // Includes read from the line are now known.
  if (files.every((f) => state.around.files?.get(f)?.text !== undefined))
    for (const k of Object.keys(inv.config))
      if (k === "include.path" || /^includeif\..+\.path$/.test(k)) delete inv.config[k];
}
