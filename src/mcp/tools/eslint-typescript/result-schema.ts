/**
 * The JSON Schema of every eslint-typescript result (seed 001's ToolResult, one schema for all six tools),
 * advertised as each tool's outputSchema. Its structure is the original server's contract: a client
 * written for it validates our results with it, so keep it field for field (test/eslint-typescript checks).
 */

const count = { type: "integer", minimum: 0 } as const;

export const FILE_STATUSES = ["clean", "fixable", "would-fix", "fixed", "unfixable", "error"] as const;

const message = {
  type: "object",
  properties: {
    ruleId: { type: ["string", "null"] },
    severity: { type: "string", enum: ["error", "warning"] },
    message: { type: "string" },
    line: count,
    column: count,
    endLine: count,
    endColumn: count,
    fixable: { type: "boolean" },
    messageId: { type: "string" },
  },
  required: ["ruleId", "severity", "message", "line", "column", "fixable"],
  additionalProperties: false,
};

const file = {
  type: "object",
  properties: {
    file: { type: "string" },
    status: { type: "string", enum: FILE_STATUSES },
    errorCount: count,
    warningCount: count,
    messages: { type: "array", items: message },
  },
  required: ["file", "status", "errorCount", "warningCount", "messages"],
  additionalProperties: false,
};

const summary = {
  type: "object",
  properties: {
    totalFiles: count,
    totalErrors: count,
    totalWarnings: count,
    fixedFiles: count,
    durationMs: count,
    scope: { type: "string", enum: ["full", "filtered"] },
    dryRun: { type: "boolean" },
  },
  required: ["totalFiles", "totalErrors", "totalWarnings", "fixedFiles", "durationMs", "scope", "dryRun"],
  additionalProperties: false,
};

export const SEED_RESULT_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: {
    tool: { type: "string" },
    success: { type: "boolean" },
    workingDirectory: { type: "string" },
    files: { type: "array", items: file },
    summary,
    error: { type: "string" },
    note: { type: "string" },
  },
  required: ["tool", "success", "workingDirectory", "files", "summary"],
  additionalProperties: false,
  $schema: "http://json-schema.org/draft-07/schema#",
};
