/**
 * tj/commander.js type-checks with `tsc -p tsconfig.ts.json` and `tsc -p tsconfig.js.json` (its scripts), and
 * type_check and check ran the nearest tsconfig.json, whose lenient settings hid 2 of the 4 errors
 * `npm run check` shows, without a word. They now say which tsconfigs the scripts use. The real tsc (bundled).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scriptTsconfigs } from "../../src/adapters/js/tsc-scripts.js";
import { runCheck } from "../helpers/check.js";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

describe("the tsconfigs a project's scripts type-check with", () => {
  it("are read from each script's tsc -p / --project", () => {
    expect(
      scriptTsconfigs({
        "check:type:js": "tsc -p tsconfig.js.json",
        "check:type:ts": "tsd && tsc -p tsconfig.ts.json",
        build: "npx tsc --project=./tsconfig.build.json --outDir dist",
        plain: "tsc --noEmit",
        other: "vue-tsc -p x.json",
      }),
    ).toEqual([
      { script: "check:type:js", config: "tsconfig.js.json" },
      { script: "check:type:ts", config: "tsconfig.ts.json" },
      { script: "build", config: "./tsconfig.build.json" },
    ]);
  });

  it("are named by type_check and check, which ran tsconfig.json", async () => {
    const dir = tempDir("mcq-tsc-scripts-");
    const json = (file: string, value: unknown) =>
      fs.writeFileSync(path.join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
    json("package.json", { name: "p", scripts: { "check:types": "tsc -p tsconfig.strict.json" } });
    json("tsconfig.json", { compilerOptions: { strict: false, noEmit: true }, include: ["*.ts"] });
    json("tsconfig.strict.json", { extends: "./tsconfig.json", compilerOptions: { strict: true } });
    fs.writeFileSync(path.join(dir, "a.ts"), "export function f(x) {\n  return x;\n}\n");
    const warning =
      "warning: the project's scripts type-check with tsconfig.strict.json (check:types): this ran tsconfig.json; pass config to check with one of them";
    const s = await connectStdio({ args: ["--allowed-paths", dir] });
    try {
      const r = await s.call("type_check", { path: dir, checker: "tsc" });
      expect(r).toMatchObject({ success: true, passed: true });
      expect(r.notes).toContain(warning);
      // With the script's tsconfig: its error, and no warning.
      const strict = await s.call("type_check", {
        path: dir,
        checker: "tsc",
        config: path.join(dir, "tsconfig.strict.json"),
      });
      expect(strict).toMatchObject({ success: true, passed: false });
      expect(JSON.stringify(strict.notes)).not.toContain("warning:");
    } finally {
      await s.close();
    }
    const report = (await runCheck([".", "--only", "tsc"], { cwd: dir })).stdout;
    expect(report).toContain(`\nTool warnings:\n  tsc: ${warning}\n`);
  }, 60_000);
});
