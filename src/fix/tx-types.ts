/**
 * The shapes of a transaction (transaction.ts): what a writing tool gives it (its spec and verification),
 * the handle its work gets, and the report it returns.
 */
import type { TxResult } from "./tx-audit.js";

export interface Verification {
  passed: boolean;
  /** What was checked, e.g. "type check (mypy)". */
  check: string;
  /** Why it failed. */
  reason?: string;
}

export interface TxHandle {
  runId: string;
  root: string;
  /** Call after each step that may have written files (test-only crash point; see test-pause.ts). */
  afterWriteStep(): Promise<void>;
  /**
   * Call before each writing step after the first: a file changed since the last step ended was edited by
   * someone else, so it becomes a conflict, never claimed as this transaction's write nor rolled back.
   */
  beforeWriteStep(): Promise<void>;
  /** Extra fields for this transaction's audit entry. */
  auditExtra: Record<string, unknown>;
}

export interface TransactionSpec<T> {
  tool: string;
  /** Canonical target; its project root is locked. */
  target: string;
  /** Absolute paths of every file the work may write; called under the lock. */
  candidates(root: string): Promise<string[]>;
  work(tx: TxHandle): Promise<T>;
  /** Checks the written tree; a failure rolls back when autoRollback is on. */
  verify?(value: T): Promise<Verification | undefined>;
  autoRollback?: boolean;
}

export interface TransactionReport {
  run_id: string;
  result: TxResult;
  project_root: string;
  files_written: string[];
  snapshot: { taken: boolean; files: number; bytes: number };
  lock_wait_ms: number;
  lock_hold_ms: number;
  verification?: Verification;
  rollback_reason?: string;
  restored_files?: string[];
  /** Written by this transaction, then changed by someone else: left as they are by its rollback. */
  conflicts?: string[];
  unsnapshotted_writes?: string[];
}

export interface TransactionOutcome<T> {
  value: T;
  transaction: TransactionReport;
  notes: string[];
}
