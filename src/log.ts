/** Leveled logger that writes to stderr only, so stdout stays the MCP protocol stream. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (l) => process.stderr.write(l),
): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const at = (lvl: LogLevel) => (msg: string) => {
    if (LOG_LEVELS.indexOf(lvl) >= threshold) write(`[mcp-code-quality] ${lvl}: ${msg}\n`);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export const silentLogger: Logger = createLogger("silent");
