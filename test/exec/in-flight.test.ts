/** InFlight (exec/in-flight.ts): one run at a time of the same work, nothing kept once it settles. */
import { describe, expect, it } from "vitest";
import { InFlight } from "../../src/exec/in-flight.js";

const later = () => {
  let resolve!: (v: string) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe("InFlight", () => {
  it("a second ask while the first runs gets its promise; the next ask after it settles runs again", async () => {
    const flights = new InFlight<string>();
    let runs = 0;
    const gate = later();
    const first = flights.join("k", () => {
      runs++;
      return gate.promise;
    });
    const second = flights.join("k", () => {
      runs++;
      return Promise.resolve("other");
    });
    // Another key is its own run.
    const other = flights.join("j", () => {
      runs++;
      return Promise.resolve("j");
    });
    expect([first.shared, second.shared, other.shared]).toEqual([false, true, false]);
    expect(runs).toBe(2);
    gate.resolve("done");
    expect(await Promise.all([first.result, second.result, other.result])).toEqual(["done", "done", "j"]);
    expect(flights.size).toBe(0);
    const third = flights.join("k", () => {
      runs++;
      return Promise.resolve("again");
    });
    expect(third.shared).toBe(false);
    expect(await third.result).toBe("again");
    expect(runs).toBe(3);
  });

  it("a failure reaches every waiter and is not kept", async () => {
    const flights = new InFlight<string>();
    const gate = later();
    const first = flights.join("k", () => gate.promise);
    const second = flights.join("k", () => Promise.resolve("unused"));
    gate.reject(new Error("failed"));
    await expect(first.result).rejects.toThrow("failed");
    await expect(second.result).rejects.toThrow("failed");
    expect(flights.size).toBe(0);
    expect(await flights.join("k", () => Promise.resolve("ok")).result).toBe("ok");
  });
});
