/**
 * Per-call sandbox scope, read when a process starts. The roots a running transaction may write: set around a transaction's work (fix/transaction.ts), read when a
 * process starts inside it, so only a transaction's own tools get a read-write view of the project.
 */
import { asyncScope } from "../../async-scope.js";

const writable = asyncScope<readonly string[]>();

export function withWritableRoots<T>(roots: readonly string[], fn: () => Promise<T>): Promise<T> {
  return writable.run(roots, fn);
}

/** The roots the current transaction writes, or undefined outside one. */
export function currentWritableRoots(): readonly string[] | undefined {
  return writable.getStore();
}

const testsOffline = asyncScope<true>();

/** Runs `fn` with run_tests' network cut, whatever the operator allows (a project setting asked for it). */
export function withTestsNetworkCut<T>(fn: () => Promise<T>): Promise<T> {
  return testsOffline.run(true, fn);
}

export function testsNetworkCut(): boolean {
  return testsOffline.getStore() === true;
}
