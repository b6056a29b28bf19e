/**
 * The memory layer of the result cache (src/cache/result-cache.ts, over lru-cache): bounded by the bytes
 * of the entries' JSON, a value over a quarter of it never kept (and what was under its key dropped),
 * null kept as a value; the closure memo bounded by count with the least recently used out.
 */
import { describe, expect, it } from "vitest";
import { ResultCache } from "../../src/cache/result-cache.js";

const MEMORY_BYTES = 64 * 1024 * 1024;

describe("the result cache in memory", () => {
  it("keeps what fits, null included, and drops a value over a quarter of memory with what its key held", () => {
    const cache = new ResultCache({ maxBytes: 0 });
    cache.put("small", { n: 1 });
    cache.put("null", null);
    expect(cache.getLocal("small")).toEqual({ n: 1 });
    expect(cache.getLocal("null")).toBeNull();
    expect(cache.stats.memory_hits).toBe(2);
    const huge = "x".repeat(MEMORY_BYTES / 4);
    cache.put("small", huge);
    expect(cache.getLocal("small")).toBeUndefined();
    expect(cache.getLocal("null")).toBeNull();
  });

  it("lets the least recently used entries go once the bytes are past the bound", () => {
    const cache = new ResultCache({ maxBytes: 0 });
    const part = "y".repeat(MEMORY_BYTES / 5);
    for (const key of ["a", "b", "c", "d"]) cache.put(key, part);
    // "a" used again: "b" is the least recently used when "e" pushes the total past the bound.
    expect(cache.getLocal("a")).toBe(part);
    cache.put("e", part);
    expect(cache.getLocal("b")).toBeUndefined();
    for (const key of ["a", "c", "d", "e"]) expect(cache.getLocal(key)).toBe(part);
  });

  it("keeps the closure memo to 10,000 entries, the least recently used out", () => {
    const cache = new ResultCache({ maxBytes: 0 });
    for (let i = 0; i < 10_000; i++) cache.closures.set(`k${i}`, { i });
    expect(cache.closures.get("k0")).toEqual({ i: 0 });
    cache.closures.set("k10000", { i: 10_000 });
    // k0 was read last of the old ones: k1 goes instead (a first-in-first-out memo would drop k0).
    expect(cache.closures.get("k0")).toEqual({ i: 0 });
    expect(cache.closures.get("k1")).toBeUndefined();
    expect(cache.closures.size).toBe(10_000);
  });
});
