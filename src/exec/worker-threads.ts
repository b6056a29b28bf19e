/**
 * node:worker_threads, loaded on first use. The command line and the hooks run from V8 start-up snapshots
 * (src/cli-snapshot.ts, src/hooks/hook-snapshot.ts) built by loading our modules: a snapshot whose build
 * loaded node:worker_threads starts no worker thread afterwards (Node's counter of the main thread's
 * working folder, a SharedArrayBuffer, does not survive the snapshot: every new thread fails at its start
 * with "undefined is not an integer typed array"). So no module imports it at its top; each takes it here
 * when it starts a thread, and the snapshots' builds refuse a heap that loaded it (`loadedWorkerThreads`).
 */
import v8 from "node:v8";
import type * as WorkerThreads from "node:worker_threads";
import { markIncrementally } from "../one-shot-gc.js";

export type WorkerThreadsModule = typeof WorkerThreads;

/** The module object itself (what `import workerThreads from "node:worker_threads"` gives). */
export function workerThreads(): WorkerThreadsModule {
  return process.getBuiltinModule("node:worker_threads");
}

type WorkerArgs = ConstructorParameters<WorkerThreadsModule["Worker"]>;
const threadWatchers = new Set<() => void>();

/**
 * A new worker thread, each watcher told first. Every thread of ours starts here, so a check's answer
 * recorder (src/check/answer/record.ts) learns of one without loading node:worker_threads to patch it
 * (~3.5 ms of every fresh check).
 */
export function startWorker(...args: WorkerArgs): WorkerThreads.Worker {
  for (const watcher of threadWatchers) watcher();
  // V8's flags are the process's: a thread's heap is marked as it goes (src/one-shot-gc.ts).
  markIncrementally();
  return new (workerThreads().Worker)(...args);
}

/** Calls `watcher` before each thread `startWorker` starts; returns what stops it. */
export function watchThreadStarts(watcher: () => void): () => void {
  threadWatchers.add(watcher);
  return () => threadWatchers.delete(watcher);
}

/** Whether this process has loaded node:worker_threads (a snapshot's build checks it before it is written). */
export function loadedWorkerThreads(): boolean {
  const list = (process as { moduleLoadList?: readonly string[] }).moduleLoadList ?? [];
  return list.includes("NativeModule worker_threads") || list.includes("NativeModule internal/worker");
}

/**
 * For a snapshot's build: when the heap is about to be written, a build that loaded node:worker_threads
 * fails with the reason instead of writing a blob that cannot start a thread.
 */
export function refuseSnapshotWithWorkerThreads(snapshot: string): void {
  v8.startupSnapshot.addSerializeCallback(() => {
    if (!loadedWorkerThreads()) return;
    process.stderr.write(
      `${snapshot}: node:worker_threads was loaded while the snapshot was built; a worker thread started ` +
        "from it would fail (load it through src/exec/worker-threads.ts)\n",
    );
    process.exit(1);
  });
}
