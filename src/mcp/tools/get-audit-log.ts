import { z } from "zod";
import { ToolError } from "../../errors.js";
import { defineTool, type ToolContext, READ_ONLY } from "../../engine/tool.js";
import { cachePaths, checkNoLinks, projectRootOf } from "../../fix/cache-dir.js";
import { TX_RESULTS, TxAudit, type AuditQuery } from "../../fix/tx-audit.js";

export const getAuditLogTool = () =>
  defineTool({
    name: "get_audit_log",
    description: "Read the server's audit log, or a project's fix transactions.",
    input: z.strictObject({
      path: z.string().optional().describe("A project: its transactions"),
      limit: z.number().int().nonnegative().default(100).describe("Most recent entries (1-1000)"),
      operation: z.string().optional().describe("Only this tool's entries"),
      tool: z.string().optional().describe("Same as operation"),
      since: z.iso.datetime({ offset: true }).optional().describe("Only entries since then"),
      result: z.enum(TX_RESULTS).optional().describe("With path: only this outcome"),
    }),
    annotations: { title: "Read the audit log", ...READ_ONLY },
    paths: [{ arg: "path", kind: "any" }],
    async handler(args, ctx) {
      const limit = Math.min(1000, Math.max(1, args.limit));
      const tool = args.tool ?? args.operation;
      if (args.path !== undefined) {
        const { root, file, entries } = await readProjectAudit(ctx, args.path, {
          tool,
          since: args.since,
          result: args.result,
          limit,
        });
        return {
          success: true,
          audit_log: file,
          project_root: root,
          limit,
          count: entries.length,
          entries,
        };
      }
      if (args.result !== undefined)
        throw new ToolError("invalid_input", "result filters a project's transaction audit: give its path");
      const since = args.since ? Date.parse(args.since) : undefined;
      const audit = ctx.engine.audit;
      const entries = await audit.read(
        limit,
        (e) =>
          (tool === undefined || e.operation === tool) &&
          (since === undefined || Date.parse(e.timestamp) >= since),
      );
      return { success: true, audit_log: audit.file, limit, count: entries.length, entries };
    },
  });

/**
 * The transaction audit of the project containing a canonical path (without creating .mcp-cache).
 * Shared by the core `get_audit_log` and the eslint-typescript drop-in.
 */
export async function readProjectAudit(ctx: ToolContext, target: string, query: AuditQuery) {
  const root = projectRootOf(target, ctx.allowlist.rootOf(target) ?? target);
  const paths = cachePaths(root);
  await checkNoLinks(paths);
  const audit = new TxAudit(paths.audit, ctx.config.cacheAuditMaxBytes);
  return { root, file: audit.file, entries: await audit.read(query) };
}
