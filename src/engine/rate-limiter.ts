/** Per-key sliding-window rate limiter: at most `limit` calls in any `windowMs`. */
export class SlidingWindowRateLimiter {
  private readonly calls = new Map<string, number[]>();

  constructor(
    private readonly limits: Readonly<Record<string, number>>,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The per-window limit of a key, or undefined when the key is unlimited. */
  limitOf(key: string): number | undefined {
    return this.limits[key];
  }

  /**
   * Records a call when allowed. Returns 0 when allowed, otherwise the milliseconds
   * until the oldest call in the window expires (when a retry will be allowed).
   */
  tryAcquire(key: string): number {
    const limit = this.limits[key];
    if (limit === undefined) return 0;
    const t = this.now();
    const recent = (this.calls.get(key) ?? []).filter((at) => t - at < this.windowMs);
    if (recent.length >= limit) {
      this.calls.set(key, recent);
      return Math.max(1, (recent[0] as number) + this.windowMs - t);
    }
    recent.push(t);
    this.calls.set(key, recent);
    return 0;
  }
}

/** Calls per minute, as seed 000 sets them. Tools not listed are unlimited. */
export const DEFAULT_RATE_LIMITS: Readonly<Record<string, number>> = {
  format_check: 100,
  lint: 50,
  autoformat: 50,
  lint_fix: 50,
  fix_all: 20,
  type_check: 30,
  check_markdown_links: 30,
  run_tests: 20,
  security_scan: 20,
  audit_dependencies: 10,
  lint_check: 50,
  // Each call may start an agent CLI that talks to a hosted model.
  remediation_advice: 10,
};
