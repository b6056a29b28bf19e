/** What a server option declares, and the helper that lets a table hold options of different keys. */
import type { Flag } from "../cli/args.js";
import type { Config } from "./types.js";
import type { Parse } from "./values.js";

/** A server option: a flag with a value (src/cli/args.ts reads it), and how it fills its key of Config. */
export interface OptionSpec<K extends keyof Config> extends Flag {
  key: K;
  env?: string[];
  /** Default, computed lazily so it can depend on the environment. */
  fallback: (cwd: string) => Config[K];
  parse: Parse<Config[K]>;
}

/** An option of one key, as a row of the table of all options. */
export function opt<K extends keyof Config>(spec: OptionSpec<K>): OptionSpec<keyof Config> {
  return spec as unknown as OptionSpec<keyof Config>;
}
