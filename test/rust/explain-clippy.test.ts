/** explain_rules for clippy (issue 16): from clippy's own lint list and docs, with a crate's own level. */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { missing } from "../helpers/tools.js";

const CRATE = path.join(FIXTURES, "rust", "explain-crate");

describe.skipIf(missing("cargo") || missing("clippy-driver"))("explain_rules with clippy", () => {
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio({ args: ["--allowed-paths", CRATE], cwd: CRATE });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("explains a lint with its examples and the crate's level, a typo and a group", async () => {
    const r = await s.call("explain_rules", {
      rules: ["clippy::needless_return", "needles_return", "style"],
      path: path.join(CRATE, "src", "lib.rs"),
    });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(r.linter).toBe("clippy");
    type Item = Record<string, unknown> & { configuration?: Record<string, unknown> };
    const [lint, typo, group] = r.rules as Item[];
    expect(lint).toMatchObject({ name: "clippy::needless_return", kind: "rule" });
    expect(lint?.bad_example).toContain("return x;");
    expect(lint?.good_example).toContain("x");
    expect(lint?.configuration).toMatchObject({ default_level: "warn", level: "deny" });
    expect(typo?.kind).toBe("unknown");
    expect(typo?.did_you_mean).toContain("clippy::needless_return");
    expect(group?.kind).toBe("category");
    expect(group?.rules).toContain("clippy::needless_return");
  });
});
