/** The advice tools of the policy toolset (issue 18): lint_check, lint_advice, tool_capabilities, remediation_advice. */
import type { ToolDefinition } from "../../../engine/tool.js";
import { lintAdviceTool } from "./lint-advice.js";
import { lintCheckTool } from "./lint-check.js";
import { remediationAdviceTool } from "./remediation-advice.js";
import { toolCapabilitiesTool } from "./tool-capabilities.js";

export function adviceTools(): ToolDefinition[] {
  return [lintCheckTool(), lintAdviceTool(), toolCapabilitiesTool(), remediationAdviceTool()];
}
