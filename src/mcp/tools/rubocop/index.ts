/**
 * The rubocop toolset: seed 003's surface (RuboCop's own MCP server: tool names, parameters, result shape) over
 * the engine's RuboCop adapter and transactions, beside the core tools.
 */
import type { ToolDefinition } from "../../../engine/tool.js";
import { rubocopAutocorrectionTool } from "./autocorrection.js";
import { rubocopExplainTool } from "./explain.js";
import { rubocopInspectionTool } from "./inspection.js";

export function rubocopTools(): ToolDefinition[] {
  return [rubocopInspectionTool(), rubocopAutocorrectionTool(), rubocopExplainTool()];
}
