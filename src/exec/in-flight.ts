/**
 * One run at a time of the same work: a caller that asks for a key while a run of it is under way gets that
 * run's promise instead of starting another. Nothing is kept once it settles (the next ask runs again), so no
 * answer outlives the files it was made from; what may be kept longer is the caller's to remember.
 */
export class InFlight<T> {
  private readonly running = new Map<string, Promise<T>>();

  /** `run()` for `key`, or the run already under way for it; `shared` says which. */
  join(key: string, run: () => Promise<T>): { result: Promise<T>; shared: boolean } {
    const under = this.running.get(key);
    if (under) return { result: under, shared: true };
    const result = run().finally(() => {
      if (this.running.get(key) === result) this.running.delete(key);
    });
    this.running.set(key, result);
    return { result, shared: false };
  }

  /** How many runs are under way. */
  get size(): number {
    return this.running.size;
  }
}
