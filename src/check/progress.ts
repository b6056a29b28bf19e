/**
 * The live progress display on stderr while the checks run: which are waiting, running and done, with
 * their times and the elapsed total, redrawn in place. Silent unless stderr is a terminal; cleared before
 * the report is printed.
 */
import { seconds, type Painter } from "./report.js";

export interface ProgressItem {
  label: string;
  state: "waiting" | "running" | "done";
  startedAt?: number;
  finishedAt?: number;
  /** A short word when done: passed, 3 findings, failed, skipped. */
  result?: string;
}

/** The display's lines at `now`, each cut to `width` columns. Pure. */
export function progressLines(
  items: readonly ProgressItem[],
  startedAt: number,
  now: number,
  width: number,
  paint: Painter,
): string[] {
  const labelWidth = Math.max(0, ...items.map((i) => i.label.length));
  const cut = (s: string) => (s.length > width ? s.slice(0, Math.max(0, width - 1)) : s);
  const lines = items.map((i) => {
    const time = i.startedAt === undefined ? "" : seconds((i.finishedAt ?? now) - i.startedAt);
    const text = cut(
      `  ${i.state.padEnd(7)}  ${i.label.padEnd(labelWidth)}  ${i.result ?? ""} ${time}`.trimEnd(),
    );
    return i.state === "running" ? paint("cyan", text) : i.state === "done" ? paint("dim", text) : text;
  });
  const done = items.filter((i) => i.state === "done").length;
  const running = items.filter((i) => i.state === "running").length;
  lines.push(cut(`${done}/${items.length} done, ${running} running · ${seconds(now - startedAt)} elapsed`));
  return lines;
}

export interface ProgressSink {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): boolean;
}

export class ProgressDisplay {
  private readonly items = new Map<string, ProgressItem>();
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = Date.now();

  /** A display on `stream` when it is a terminal; otherwise every method does nothing. */
  constructor(
    private readonly stream: ProgressSink,
    private readonly paint: Painter,
  ) {}

  get active(): boolean {
    return this.stream.isTTY === true;
  }

  add(label: string): void {
    this.items.set(label, { label, state: "waiting" });
  }

  start(label: string): void {
    if (this.active && !this.timer) {
      this.stream.write("\x1b[?25l");
      this.timer = setInterval(() => this.draw(), 250);
      this.timer.unref();
    }
    this.update(label, { state: "running", startedAt: Date.now() });
  }

  finish(label: string, result: string): void {
    this.update(label, { state: "done", finishedAt: Date.now(), result });
  }

  /** Clears the display (the report follows in its place). */
  stop(): void {
    if (!this.active) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.erase();
    this.stream.write("\x1b[?25h");
  }

  private update(label: string, change: Partial<ProgressItem>): void {
    const item = this.items.get(label) ?? { label, state: "waiting" };
    this.items.set(label, { ...item, ...change });
    this.draw();
  }

  private erase(): void {
    // Back to the first line of the display, then clear to the end of the screen.
    if (this.drawn) this.stream.write(`\x1b[${this.drawn}F\x1b[J`);
    this.drawn = 0;
  }

  private draw(): void {
    if (!this.active) return;
    const lines = progressLines(
      [...this.items.values()],
      this.startedAt,
      Date.now(),
      Math.max(20, (this.stream.columns || 80) - 1),
      this.paint,
    );
    this.erase();
    this.stream.write(lines.join("\n") + "\n");
    this.drawn = lines.length;
  }
}
