/** The policy toolset's tools that come from the policy bundle (issue 18). */
import type { ToolDefinition } from "../../../engine/tool.js";
import { policyCheckCommandTool } from "./check-command.js";
import { policyCheckEditTool } from "./check-edit.js";
import { policyExplainTool } from "./explain.js";
import { remediationExplainTool } from "./remediation-explain.js";
import { skillLookupTool, skillRecommendTool } from "./skills.js";

export function policyTools(): ToolDefinition[] {
  return [
    policyCheckCommandTool(),
    policyCheckEditTool(),
    policyExplainTool(),
    skillLookupTool(),
    skillRecommendTool(),
    remediationExplainTool(),
  ];
}
