/**
 * The cargo workspace lock (src/adapters/rust/workspace-lock.ts): the runs of one process on one workspace
 * queue for it in turn, one at a time, in the order they asked (check starts cargo fmt, clippy and check of a
 * crate at once; each waiter used to poll the lock file), and a run that waits past its limit fails with a
 * timeout while the queue behind it goes on.
 */
import { afterAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import { withWorkspaceLock } from "../../src/adapters/rust/workspace-lock.js";
import { ToolError } from "../../src/errors.js";
import { tempDir } from "../helpers/tools.js";

const workspace = tempDir("mcq-workspace-lock-");
afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }));

/** A promise and its resolver. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("withWorkspaceLock in one process", () => {
  it("runs one at a time, in the order asked, each after the one before ends", async () => {
    const events: string[] = [];
    const gates = [gate(), gate(), gate()];
    const runs = gates.map((g, i) =>
      withWorkspaceLock(workspace, 60_000, async () => {
        events.push(`start ${i}`);
        await g.opened;
        events.push(`end ${i}`);
        return i;
      }),
    );
    // Opened last to first: a run that ends before the ones asked earlier would show here.
    for (const g of [...gates].reverse()) {
      await new Promise((r) => setTimeout(r, 20));
      g.open();
    }
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(events).toEqual(["start 0", "end 0", "start 1", "end 1", "start 2", "end 2"]);
  });

  it("a run's failure is its own: the next one still runs", async () => {
    const failed = withWorkspaceLock(workspace, 60_000, () => Promise.reject(new Error("cargo broke")));
    const next = withWorkspaceLock(workspace, 60_000, () => Promise.resolve("ran"));
    await expect(failed).rejects.toThrow("cargo broke");
    expect(await next).toBe("ran");
  });

  it("a run that waits past its limit is a timeout; the runs queued behind it go on", async () => {
    const holder = gate();
    const held = withWorkspaceLock(workspace, 60_000, () => holder.opened.then(() => "held"));
    const impatient = withWorkspaceLock(workspace, 50, () => Promise.resolve("never"));
    const patient = withWorkspaceLock(workspace, 60_000, () => Promise.resolve("after"));
    const error = await impatient.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ errorType: "timeout" });
    holder.open();
    expect(await held).toBe("held");
    expect(await patient).toBe("after");
  });
});
