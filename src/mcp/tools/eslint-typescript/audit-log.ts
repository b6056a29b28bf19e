/**
 * seed 001 `audit_log`: the transaction audit of cwd's project (.mcp-cache/audit.jsonl, its rotated files,
 * and entries the original server wrote), newest last, one files[] record per entry as the original gives it.
 */
import { z } from "zod";
import { READ_ONLY } from "../../../engine/tool.js";
import type { TxAuditEntry } from "../../../fix/tx-audit.js";
import { readProjectAudit } from "../get-audit-log.js";
import { cwdParam } from "./params.js";
import {
  seedNote,
  seedTool,
  totalsOf,
  type SeedFile,
  type SeedResult,
  type SeedStatus,
} from "./seed-result.js";

const STATUS_OF_RESULT: Record<string, SeedStatus> = {
  commit: "fixed",
  rollback: "clean",
  "commit-partial-snapshot": "fixable",
  "commit-no-snapshot": "fixable",
  error: "error",
  "locked-out": "error",
};

/** The result as the original records it: a manual rollback is `rollback` (ours: the rollback's own commit). */
export function seedResultOf(e: TxAuditEntry): string {
  return e.tool === "rollback" && e.rollbackReason === "manual" ? "rollback" : e.result;
}

/** One audit entry as the original's FileDiagnostic-shaped record: file is the runId, one summary message. */
export function auditRecord(e: TxAuditEntry): SeedFile {
  const result = seedResultOf(e);
  const status = STATUS_OF_RESULT[result] ?? "unfixable";
  const severity = status === "error" ? "error" : "warning";
  const reason = typeof e.rollbackReason === "string" ? e.rollbackReason : undefined;
  const error = typeof e.error === "string" ? e.error : e.result === "error" ? e.reason : undefined;
  const duration = typeof e.durationMs === "number" ? e.durationMs : e.lock_wait_ms + e.lock_hold_ms;
  const text =
    `${e.tool} ${result} at ${e.timestamp}; filesWritten=${e.files_written.length}; durationMs=${duration}` +
    (reason ? `; reason=${reason}` : "") +
    (error ? `; error=${error}` : "") +
    (e.reason && e.reason !== error ? `; detail=${e.reason}` : "");
  return {
    file: e.run_id,
    status,
    errorCount: severity === "error" ? 1 : 0,
    warningCount: severity === "warning" ? 1 : 0,
    messages: [{ ruleId: result, severity, message: text, line: 0, column: 0, fixable: false }],
  };
}

export const seedAuditLogTool = () =>
  seedTool({
    name: "audit_log",
    description:
      "Read the audit trail of cwd's project, oldest first: one files[] record per lint_fix / fix_all / rollback " +
      "transaction, `file` its runId, `status` its outcome (fixed: commit, fixable: committed without a full " +
      "snapshot, clean: rolled back, error: error or locked out) and one message summing it up (ruleId: the result).",
    input: z.strictObject({
      cwd: cwdParam,
      limit: z
        .number()
        .int()
        .positive()
        .max(500)
        .default(50)
        .describe("How many of the newest entries (default 50, max 500)"),
      tool: z.enum(["lint_fix", "fix_all", "rollback"]).optional().describe("Only entries of this tool"),
      since: z.iso
        .datetime({ offset: true })
        .optional()
        .describe("Only entries at or after this ISO 8601 time"),
      result: z
        .enum(["commit", "rollback", "error", "locked-out", "commit-partial-snapshot", "commit-no-snapshot"])
        .optional()
        .describe("Only entries with this result"),
    }),
    annotations: { title: "Read the audit trail", ...READ_ONLY },
    async handler(args, ctx): Promise<SeedResult> {
      const started = performance.now();
      const cwd = args.cwd as string;
      const { file, entries: matching } = await readProjectAudit(ctx, cwd, {
        tool: args.tool,
        since: args.since,
      });
      const entries = matching
        .filter((e) => !args.result || seedResultOf(e) === args.result)
        .slice(-args.limit);
      const files = entries.map(auditRecord);
      return {
        tool: "audit_log",
        success: true,
        workingDirectory: cwd,
        files,
        summary: {
          ...totalsOf(files),
          fixedFiles: entries.filter((e) => seedResultOf(e) === "commit").length,
          durationMs: Math.round(performance.now() - started),
          scope: "filtered",
          dryRun: false,
        },
        note: seedNote([`${entries.length} audit entr${entries.length === 1 ? "y" : "ies"} from ${file}`]),
      };
    },
  });
