/** One line of a project's transaction audit (tx-audit.ts), as seed-interop.ts also reads and writes it. */
export const TX_RESULTS = [
  "commit",
  "commit-no-snapshot",
  "commit-partial-snapshot",
  "rollback",
  "error",
  "locked-out",
] as const;
export type TxResult = (typeof TX_RESULTS)[number];

export interface TxAuditEntry {
  timestamp: string;
  run_id: string;
  tool: string;
  root: string;
  result: TxResult;
  /** Why: the failed check of a rollback, the error message, the recovery that wrote it. */
  reason?: string;
  /** Files the transaction wrote, relative to the root. */
  files_written: string[];
  lock_wait_ms: number;
  lock_hold_ms: number;
  [key: string]: unknown;
}
