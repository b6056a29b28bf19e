/** CallProgress: counts exact, events between them below the next count, every value larger than the last. */
import { describe, expect, it } from "vitest";
import { CallProgress, type ProgressUpdate } from "../../src/engine/progress.js";

function progress() {
  const sent: ProgressUpdate[] = [];
  return { p: new CallProgress((u) => void sent.push(u), "tool", 0), sent };
}

describe("CallProgress", () => {
  it("sends counts as they are, events as fractions below the next, and nothing after close", () => {
    const { p, sent } = progress();
    p.report({ message: "running ty" });
    p.report({ message: "still", done: 0, total: 4 });
    p.report({ message: "1 of 4", done: 1, total: 4 });
    p.report({ message: "running git" });
    p.heartbeat();
    p.close();
    p.report({ message: "late", done: 2, total: 4 });
    expect(sent.map((u) => u.progress)).toEqual([1 / 2, 2 / 3, 1, 1.5, 1 + 2 / 3]);
    expect(sent.map((u) => u.total)).toEqual([undefined, 4, 4, 4, 4]);
    expect(sent[0]?.message).toBe("tool: running ty");
    expect(sent[4]?.message).toMatch(/^tool: running git \(\d+ s\)$/);
  });

  it("throttles counts close together but always sends the last, and nothing past the total", () => {
    const { p, sent } = progress();
    for (let done = 1; done <= 50; done++) p.report({ message: `${done}`, done, total: 50 });
    p.report({ message: "after" });
    expect(sent[0]?.progress).toBe(1);
    expect(sent.at(-1)).toEqual({ progress: 50, total: 50, message: "tool: 50" });
    expect(sent.length).toBeLessThan(50);
  });
});
