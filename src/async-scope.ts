/**
 * Every AsyncLocalStorage of ours, made here so that they can all be turned off at once. The command line's
 * snapshot runs a check while it is built (src/snapshot-warm-up.ts); a storage that ran leaves V8's promise
 * hooks on, and Node writes no snapshot with promise hooks set. A disabled storage turns itself on again at
 * its next `run`.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const scopes: AsyncLocalStorage<unknown>[] = [];

export function asyncScope<T>(): AsyncLocalStorage<T> {
  const scope = new AsyncLocalStorage<T>();
  scopes.push(scope as AsyncLocalStorage<unknown>);
  return scope;
}

/** Turns every storage off (their hooks with them): for a snapshot's build, after its warm-up. */
export function disableAsyncScopes(): void {
  for (const scope of scopes) scope.disable();
}
