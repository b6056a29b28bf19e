/**
 * Typed failures every tool result can carry (`error_type`), plus the protocol-level invalid-arguments error.
 * At the top of src/ because every layer raises them (paths, adapters, engine, tools): no layer imports up.
 */
export const ERROR_TYPES = [
  "path_validation",
  "invalid_input",
  "rate_limit",
  "tool_not_found",
  "timeout",
  "tool_error",
  "exception",
  "locked",
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

/** A failure that becomes a `success: false` result with `error` and `error_type`. */
export class ToolError extends Error {
  constructor(
    readonly errorType: ErrorType,
    message: string,
    /** Extra fields merged into the result (e.g. allowed_paths, output, command). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ToolError";
  }
}

/** Arguments that do not match the schema: surfaced as an MCP InvalidParams error, never as a result. */
export class InvalidArgumentsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidArgumentsError";
  }
}
