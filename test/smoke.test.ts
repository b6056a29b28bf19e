import { describe, expect, it } from "vitest";
import { connectStdio, FIXTURES } from "./helpers/server.js";
import path from "node:path";

describe("smoke", () => {
  it("lints the python fixture with the embedded ruff", async () => {
    const fx = path.join(FIXTURES, "python", "lint-project");
    const s = await connectStdio({ args: ["--allowed-paths", fx], cwd: fx, env: { PATH: "/usr/bin:/bin" } });
    const r = await s.call("lint", { path: "." });
    await s.close();
    expect(r.issues).toEqual([
      "pkg/app.py:1:8: F401 `os` imported but unused",
      "pkg/app.py:8:13: E711 Comparison to `None` should be `cond is None`",
    ]);
  });
});
