import { z } from "zod";
import { defineTool } from "../../engine/tool.js";

export const getAuditLogTool = () =>
  defineTool({
    name: "get_audit_log",
    description:
      "The most recent audit log entries (oldest first), optionally of one operation. Reads across one rotation.",
    input: z.strictObject({
      limit: z.number().int().nonnegative().default(100).describe("How many entries (clamped to 1-1000)"),
      operation: z.string().optional().describe("Only entries of this tool"),
    }),
    annotations: {
      title: "Read the audit log",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    async handler(args, ctx) {
      const limit = Math.min(1000, Math.max(1, args.limit));
      const audit = ctx.engine.audit;
      const entries = await audit.read(
        limit,
        (e) => args.operation === undefined || e.operation === args.operation,
      );
      return { success: true, audit_log: audit.file, limit, count: entries.length, entries };
    },
  });
