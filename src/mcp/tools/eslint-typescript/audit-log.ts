/** seed 001 `audit_log`: the transaction audit of cwd's project (.mcp-cache/audit.jsonl), newest last. */
import { z } from "zod";
import { defineTool, READ_ONLY } from "../../../engine/tool.js";
import { TX_RESULTS } from "../../../fix/tx-audit.js";
import { readProjectAudit } from "../get-audit-log.js";
import { CWD_PATH, cwdParam } from "./params.js";
import { camelKeys, seedNote } from "./seed-result.js";

export const seedAuditLogTool = () =>
  defineTool({
    name: "audit_log",
    description:
      "Read the audit trail of cwd's project: one entry per lint_fix / fix_all / rollback transaction with its " +
      "runId, tool, filesWritten, lock wait and hold times and result (commit, commit-no-snapshot, " +
      "commit-partial-snapshot, rollback with its reason, error, locked-out). Oldest first.",
    input: z.strictObject({
      cwd: cwdParam,
      limit: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .default(100)
        .describe("How many of the newest entries (1-1000)"),
      tool: z.string().optional().describe("Only entries of this tool (lint_fix, fix_all, rollback)"),
      since: z.iso
        .datetime({ offset: true })
        .optional()
        .describe("Only entries at or after this ISO 8601 time"),
      result: z.enum(TX_RESULTS).optional().describe("Only entries with this result"),
    }),
    annotations: { title: "Read the audit trail", ...READ_ONLY },
    paths: CWD_PATH,
    exactResult: true,
    async handler(args, ctx) {
      const cwd = args.cwd as string;
      const { file, entries } = await readProjectAudit(ctx, cwd, {
        tool: args.tool,
        since: args.since,
        result: args.result,
        limit: args.limit,
      });
      return {
        tool: "audit_log",
        success: true,
        workingDirectory: cwd,
        auditFile: file,
        count: entries.length,
        entries: entries.map(camelKeys),
        note: seedNote(),
      };
    },
  });
