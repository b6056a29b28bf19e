/** The toolsets' name table (used to refuse clashes before anything heavy is imported) is what they define. */
import { describe, expect, it } from "vitest";
import { KNOWN_TOOLSETS } from "../../src/config.js";
import { toolsFor } from "../../src/mcp/tools/index.js";
import { TOOLSET_TOOL_NAMES, toolsetClash } from "../../src/mcp/tools/toolset-names.js";

describe("toolset names", () => {
  it.each(KNOWN_TOOLSETS)("%s: the table lists exactly the tools it defines", (set) => {
    expect(toolsFor([set]).map((t) => t.name)).toEqual(TOOLSET_TOOL_NAMES[set]);
  });

  it("finds the clash toolsFor would throw, and none for the default toolsets", () => {
    expect(toolsetClash(["core", "policy"])).toBeUndefined();
    expect(toolsetClash(["core", "eslint-typescript"])).toBe(
      '--toolsets: core and eslint-typescript both define the tool "lint"; choose one',
    );
    expect(() => toolsFor(["core", "eslint-typescript"])).toThrow(
      toolsetClash(["core", "eslint-typescript"]),
    );
  });
});
