/**
 * How the server's flags read their values: each parser takes the raw text and the flag it came from, and
 * throws ConfigError naming the flag. Pure.
 */
import path from "node:path";
import { FlagError, int as intIn } from "../cli/args.js";
import { KNOWN_TOOLSETS, type Mode, type RetainMode } from "./types.js";

/**
 * A bad server flag or value (or environment variable): `--port: must be in 0-65535, got 70000`. The one
 * flag error of every command line (src/cli/args.ts), under the name the server's callers know.
 */
export const ConfigError = FlagError;
export type ConfigError = FlagError;

export type Parse<T> = (raw: string, flag: string) => T;

/** A whole number in min-max, in the words every number flag uses (src/cli/args.ts). */
export const int =
  (min: number, max: number): Parse<number> =>
  (raw, flag) =>
    intIn(raw, flag, min, max);

export const bool: Parse<boolean> = (raw, flag) => {
  const v = raw.trim().toLowerCase();
  if (["true", "1", "yes", "on"].includes(v)) return true;
  if (["false", "0", "no", "off"].includes(v)) return false;
  throw new ConfigError(flag, `expected true or false, got "${raw}"`);
};

export const retainMode: Parse<RetainMode> = (raw, flag) => {
  if (raw.trim().toLowerCase() === "per-call") return "per-call";
  try {
    return bool(raw, flag) ? "all" : "off";
  } catch {
    throw new ConfigError(flag, `expected true, false or per-call, got "${raw}"`);
  }
};

export const oneOf =
  <T extends string>(values: readonly T[]): Parse<T> =>
  (raw, flag) => {
    if ((values as readonly string[]).includes(raw)) return raw as T;
    throw new ConfigError(flag, `expected one of ${values.join(", ")}, got "${raw}"`);
  };

export const nonEmpty: Parse<string> = (raw, flag) => {
  if (raw.trim() === "") throw new ConfigError(flag, "must not be empty");
  return raw;
};

export const list =
  (separator: RegExp): Parse<string[]> =>
  (raw, flag) => {
    const items = raw
      .split(separator)
      .map((s) => s.trim())
      .filter(Boolean);
    if (items.length === 0) throw new ConfigError(flag, "must name at least one entry");
    return items;
  };

// `server` is seed 000's name for the HTTP server, `http` ours; both mean standalone.
export const MODES = ["stdio", "standalone", "http", "server", "client"] as const;
export const parseMode: Parse<Mode> = (raw, flag) => {
  const m = oneOf(MODES)(raw, flag);
  return m === "http" || m === "server" ? "standalone" : m;
};

export const parseToolsets: Parse<string[]> = (raw, flag) => {
  const sets = list(/,/)(raw, flag);
  for (const s of sets)
    if (!(KNOWN_TOOLSETS as readonly string[]).includes(s))
      throw new ConfigError(flag, `unknown toolset "${s}"; known: ${KNOWN_TOOLSETS.join(", ")}`);
  return [...new Set(sets)];
};

export const absolutePath: Parse<string> = (raw, flag) => {
  if (!path.isAbsolute(raw)) throw new ConfigError(flag, `must be an absolute path, got "${raw}"`);
  return path.normalize(raw);
};

export const httpUrl: Parse<string> = (raw, flag) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(flag, `not a URL: "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ConfigError(flag, `must be an http:// or https:// URL, got "${raw}"`);
  if (url.username || url.password)
    throw new ConfigError(flag, "put the token in --remote-cache-token, not the URL");
  return url.toString().replace(/\/+$/, "");
};

/** Is this bind address a loopback one (so no token is needed)? */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
