/** The toolsets: which MCP tools a server exposes. */
import "../../adapters/python/index.js";
import "../../adapters/secrets/index.js";
import "../../adapters/js/index.js";
import "../../adapters/go/index.js";
import "../../adapters/rust/index.js";
import "../../adapters/ruby/index.js";
import type { ToolDefinition } from "../../engine/tool.js";
import type { RetainMode } from "../../config.js";
import { autoformatTool } from "./autoformat.js";
import { fixAllTool } from "./fix-all.js";
import { checkMarkdownLinksTool } from "./check-markdown-links.js";
import { formatCheckTool } from "./format-check.js";
import { getAuditLogTool } from "./get-audit-log.js";
import { getStatusTool } from "./get-status.js";
import { lintTool } from "./lint.js";
import { lintFixTool } from "./lint-fix.js";
import { rollbackTool } from "./rollback.js";
import { typeCheckTool } from "./type-check.js";
import { runTestsTool } from "./run-tests.js";
import { securityScanTool } from "./security-scan.js";
import { auditDependenciesTool } from "./audit-dependencies.js";
import { eslintTypescriptTools } from "./eslint-typescript/index.js";
import { retainable } from "./sarif-output.js";
import { sarifTools } from "./sarif-analytics.js";
import { rubocopTools } from "./rubocop/index.js";
import { adviceTools } from "./advice/index.js";
import { policyTools } from "./policy/index.js";
import { explainRulesTool } from "./explain-rules.js";
import { withSeed002Aliases } from "./seed-002-aliases.js";

/** A factory returns undefined for a tool with nothing registered yet (it is not listed). */
/** What of the server's configuration decides which tools (and arguments) are listed. */
export interface ToolsetOptions {
  retainTraces?: RetainMode;
}

const TOOLSETS: Record<string, (options: ToolsetOptions) => (ToolDefinition | undefined)[]> = {
  core: ({ retainTraces: r }) => [
    retainable(formatCheckTool(), r),
    autoformatTool(),
    retainable(lintTool(), r),
    retainable(lintFixTool(), r),
    explainRulesTool(),
    retainable(typeCheckTool(), r),
    retainable(runTestsTool(), r),
    retainable(securityScanTool(), r),
    retainable(auditDependenciesTool(), r),
    retainable(fixAllTool(), r),
    rollbackTool(),
    retainable(checkMarkdownLinksTool(), r),
    getStatusTool(),
    getAuditLogTool(),
  ],
  policy: () => [...policyTools(), ...adviceTools(), ...sarifTools()].map(withSeed002Aliases),
  "eslint-typescript": eslintTypescriptTools,
  rubocop: rubocopTools,
};

/**
 * Definitions made ahead of a process's start (the command line's start-up snapshot, src/cli-snapshot.ts:
 * their schemas cost ~9 ms of a fresh `check`), each handed out once, so a process gets exactly what it
 * would have made at its start. Made from code alone: no toolset reads the environment when it is made.
 */
const madeAhead = new Map<string, ToolDefinition[]>();
const aheadKey = (toolsets: readonly string[], options: ToolsetOptions) =>
  JSON.stringify([toolsets, options.retainTraces ?? null]);

export function makeToolsAhead(toolsets: readonly string[], options: ToolsetOptions = {}): void {
  madeAhead.set(aheadKey(toolsets, options), toolsFor(toolsets, options));
}

/** Whether definitions made ahead wait for the first process that asks for these (tests ask). */
export function hasToolsAhead(toolsets: readonly string[], options: ToolsetOptions = {}): boolean {
  return madeAhead.has(aheadKey(toolsets, options));
}

/** The tool definitions of the chosen toolsets; names that clash between toolsets are a start-up error. */
export function toolsFor(toolsets: readonly string[], options: ToolsetOptions = {}): ToolDefinition[] {
  const key = aheadKey(toolsets, options);
  const ahead = madeAhead.get(key);
  if (ahead) {
    madeAhead.delete(key);
    return ahead;
  }
  const tools: ToolDefinition[] = [];
  const owner = new Map<string, string>();
  for (const set of toolsets) {
    const make = TOOLSETS[set];
    if (!make) throw new Error(`toolset "${set}" is not available in this build`);
    for (const tool of make(options)) {
      if (!tool) continue;
      const clash = owner.get(tool.name);
      if (clash)
        throw new Error(`--toolsets: ${clash} and ${set} both define the tool "${tool.name}"; choose one`);
      owner.set(tool.name, set);
      tools.push(tool);
    }
  }
  return tools;
}
