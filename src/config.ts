/**
 * Server configuration: every flag, its environment variable, default and range, validated once at start.
 * A bad value throws ConfigError naming the flag, and the CLI stops with that message. The pieces live in
 * src/config/: the shape (types), the value parsers (values), the option table (options), the loader (load)
 * and the help (help).
 */
export * from "./config/types.js";
export { ConfigError, isLoopbackHost } from "./config/values.js";
export { OPTIONS } from "./config/options.js";
export type { OptionSpec } from "./config/option-spec.js";
export { loadConfig, providerPathProblem, SERVER_COMMAND_LINE } from "./config/load.js";
export { helpText, VERSION_FLAG, type Program } from "./config/help.js";
