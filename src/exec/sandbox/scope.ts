/**
 * Per-call sandbox scope, read when a process starts. The roots a running transaction may write: set around a transaction's work (fix/transaction.ts), read when a
 * process starts inside it, so only a transaction's own tools get a read-write view of the project.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const writable = new AsyncLocalStorage<readonly string[]>();

export function withWritableRoots<T>(roots: readonly string[], fn: () => Promise<T>): Promise<T> {
  return writable.run(roots, fn);
}

/** The roots the current transaction writes, or undefined outside one. */
export function currentWritableRoots(): readonly string[] | undefined {
  return writable.getStore();
}

const testsOffline = new AsyncLocalStorage<true>();

/** Runs `fn` with run_tests' network cut, whatever the operator allows (a project setting asked for it). */
export function withTestsNetworkCut<T>(fn: () => Promise<T>): Promise<T> {
  return testsOffline.run(true, fn);
}

export function testsNetworkCut(): boolean {
  return testsOffline.getStore() === true;
}
