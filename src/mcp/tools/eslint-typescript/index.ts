/**
 * The eslint-typescript toolset: seed 001's surface (tool names, camelCase parameters, result shape) over
 * the engine's ESLint and tsc adapters and transactions, so a client of that server works unchanged.
 */
import type { ToolDefinition } from "../../../engine/tool.js";
import { seedAuditLogTool } from "./audit-log.js";
import { seedFixAllTool } from "./fix-all.js";
import { seedLintTool } from "./lint.js";
import { seedLintFixTool } from "./lint-fix.js";
import { seedRollbackTool } from "./rollback.js";
import { seedTypecheckTool } from "./typecheck.js";

export function eslintTypescriptTools(): ToolDefinition[] {
  return [
    seedLintTool(),
    seedLintFixTool(),
    seedTypecheckTool(),
    seedFixAllTool(),
    seedRollbackTool(),
    seedAuditLogTool(),
  ];
}
