/** Pure parts of the rubocop toolset: the per-cop cap of listed offenses, and only/except contradictions. */
import { describe, expect, it } from "vitest";
import { capPerCop } from "../../src/adapters/ruby/rubocop-run.js";
import { scopeContradiction } from "../../src/mcp/tools/rubocop/params.js";

describe("capPerCop", () => {
  const cops = ["A/x", "B/y", "A/x", "A/x", "B/y", "A/x"];
  it("lists at most max per cop across the list, in order, and counts the rest", () => {
    const { listed, unreported } = capPerCop(cops, (c) => c, 2);
    expect(listed).toEqual(["A/x", "B/y", "A/x", "B/y"]);
    expect(unreported).toEqual({ "A/x": 2 });
  });
  it("lists everything without a max", () => {
    expect(capPerCop(cops, (c) => c, undefined)).toEqual({ listed: cops, unreported: {} });
  });
});

describe("scopeContradiction", () => {
  it("flags an only entry that except names or contains", () => {
    expect(scopeContradiction(["Lint/UselessAssignment"], ["Lint"])).toBe(
      "only: Lint/UselessAssignment is also excluded by except: Lint",
    );
    expect(scopeContradiction(["Style"], ["Style"])).toMatch(/Style is also excluded/);
  });
  it("accepts narrowing a department and unrelated names", () => {
    expect(scopeContradiction(["Lint"], ["Lint/UselessAssignment"])).toBeUndefined();
    expect(scopeContradiction(["Lint"], ["Layout"])).toBeUndefined();
    expect(scopeContradiction(["Lint/Void"], ["Lint/VoidX"])).toBeUndefined();
    expect(scopeContradiction(undefined, ["Lint"])).toBeUndefined();
  });
});
