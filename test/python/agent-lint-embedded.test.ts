/**
 * Seed 003's agent features with the embedded ruff (no ruff CLI on PATH): inline code under a folder with
 * its own config, and lint_fix's rule scope and contextual hold-backs applied to the embedded fixes.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";
import { PATH_WITHOUT_RUFF } from "../fix/helpers.js";

const PROJECT = path.join(FIXTURES, "python", "agent-project");
const rules = (list: unknown) => (list as { rule_id: string }[]).map((o) => o.rule_id);

describe("embedded ruff: seed 003's agent features", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(PROJECT);
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir, env: { PATH: PATH_WITHOUT_RUFF } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("lints inline code under the folder's config; lint_fix on inline code needs the CLI", async () => {
    const code = "import sys\nimport os\n\nprint(os.sep)\n";
    const r = await s.call("lint", { path: path.join(dir, "strict", "new.py"), source_code: code });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(rules(r.offenses)).toEqual(["I001", "F401"]);
    expect(String(r.command)).toContain("(embedded)");
    const fix = await s.call("lint_fix", { path: path.join(dir, "strict", "new.py"), source_code: code });
    expect(fix.error_type).toBe("invalid_input");
  });

  it("only and contextual: false narrow the embedded fixes", async () => {
    const file = path.join(dir, "strict", "mod.py");
    const only = await s.call("lint_fix", { path: file, safety: "unsafe", only: ["I"], dry_run: true });
    expect(only.success, JSON.stringify(only)).toBe(true);
    const entry = (only.files as { messages: { rule_id: string }[]; diff?: string }[])[0]!;
    // Only the imports were sorted; the leftovers are those of the rules in scope (none).
    expect(only.diff).toContain("-import sys\n import os\n+import sys\n");
    expect(entry.messages).toEqual([]);
    const held = await s.call("lint_fix", { path: file, safety: "unsafe", contextual: false });
    expect(fs.readFileSync(file, "utf8")).toBe(
      "import os\nimport sys\n\n\ndef g():\n    unused = 2\n    return os.sep\n",
    );
    expect(rules((held.files as { messages: unknown }[])[0]!.messages)).toEqual(["F401", "F841"]);
  });
});
