/**
 * V8's incremental marking in a one-shot `check` process. Such a process deserializes a ~16 MB heap (its
 * snapshot) and allocates a few MB more while it plans and runs tools; that growth reaches the soft limit at
 * which V8 starts marking the whole old generation incrementally, and a cold check of pylint spent ~30 ms
 * there (a 16 ms step among them) for memory the process gives back at its exit a moment later. Without
 * incremental marking the old generation is collected at its hard limit only, which such a check does not
 * reach. Work that allocates much in this process (the Markdown link checker, a worker thread's parse of a
 * TypeScript project) turns it back on first: there, collecting at the hard limit in one pause cost more CPU
 * than marking as it goes (electron's docs: +10%).
 */
import v8 from "node:v8";

let deferred = false;

/** A one-shot check is starting: no incremental marking until something allocates much (see below). */
export function deferMarkingForOneShot(): void {
  v8.setFlagsFromString("--no-incremental-marking");
  deferred = true;
}

/** Work that allocates much is starting in this process: incremental marking on again, if it was off. */
export function markIncrementally(): void {
  if (!deferred) return;
  v8.setFlagsFromString("--incremental-marking");
  deferred = false;
}

/** Whether a one-shot check has incremental marking off now (tests read it). */
export function markingDeferred(): boolean {
  return deferred;
}
