/**
 * One `--max-workers` budget for every long-lived process the server keeps: the worker pool's ESLint,
 * TypeScript, Prettier and RuboCop workers and the type-checker daemons (dmypy, pyright) together.
 * Each owner joins the server's budget and lists its live processes as slots; before starting one, an
 * owner asks the budget to make room, which ends the least recently used idle slot of any owner.
 * (The embedded-ruff thread is a thread of the server, not a process, and is not counted.)
 */

export interface BudgetSlot {
  lastUsed: number;
  /** Nothing running or queued on it: it may be ended to make room. */
  idle: boolean;
  /** Ends it (its owner forgets it). */
  end(): void;
}

export interface BudgetMember {
  /** The owner's live processes (not those already ending). */
  slots(): BudgetSlot[];
}

export class WarmBudget {
  private readonly members = new Set<BudgetMember>();

  constructor(readonly maxWorkers: number) {}

  join(member: BudgetMember): void {
    this.members.add(member);
  }

  /** Live processes of every member. */
  live(): number {
    let n = 0;
    for (const m of this.members) n += m.slots().length;
    return n;
  }

  /** Ends least recently used idle slots, of any member, while more than maxWorkers (less `reserve`) live. */
  enforce(reserve = 0): void {
    const all = [...this.members].flatMap((m) => m.slots());
    let excess = all.length + reserve - this.maxWorkers;
    if (excess <= 0) return;
    const idle = all.filter((s) => s.idle).sort((a, b) => a.lastUsed - b.lastUsed);
    for (const slot of idle) {
      if (excess <= 0) break;
      slot.end();
      excess--;
    }
  }
}

export const WARM_BUDGET_SERVICE = "warm-budget";

/** The budget of a server, from anything shaped like its Services. */
export function warmBudget(
  services: { get<T extends object>(key: string, create: () => T): T },
  maxWorkers: number,
): WarmBudget {
  return services.get(WARM_BUDGET_SERVICE, () => new WarmBudget(maxWorkers));
}
