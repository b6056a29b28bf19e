/**
 * `check src/index.ts` (or `check .` in src/) of a TypeScript project ran ESLint only, never tsc, exit 0,
 * where `tsc -p ..` fails: a path inside a TypeScript project is type-checked by its project's tsc run, which
 * reports on the whole program; the findings under the path are kept. The real bundled tsc, by hand.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJson, runCheck } from "../helpers/check.js";
import { REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

describe("a path inside a TypeScript project", () => {
  it("is type-checked by its project's tsc, keeping the findings under it", async () => {
    const dir = tempDir("mcq-ts-inside-");
    fs.mkdirSync(path.join(dir, "src"));
    fs.mkdirSync(path.join(dir, "lib"));
    fs.writeFileSync(
      path.join(dir, "tsconfig.json"),
      '{ "compilerOptions": { "strict": true, "types": [], "noEmit": true }, "include": ["src", "lib"] }\n',
    );
    fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "inside", "private": true }\n');
    fs.writeFileSync(path.join(dir, "src", "index.ts"), "export function f(x) {\n  return x;\n}\n");
    fs.writeFileSync(path.join(dir, "lib", "b.ts"), 'export const n: number = "s";\n');
    const byHand = spawnSync(
      process.execPath,
      [path.join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", "..", "--pretty", "false"],
      { cwd: path.join(dir, "src"), encoding: "utf8" },
    );
    expect(byHand.stdout).toContain("index.ts(1,19): error TS7006");
    expect(byHand.stdout).toContain("../lib/b.ts(1,14): error TS2322");
    for (const [cwd, target] of [
      [dir, "src/index.ts"],
      [path.join(dir, "src"), "."],
    ] as const) {
      const run = await runCheck([target, "--json", "--result-cache", "false", "--allowed-paths", dir], {
        cwd,
      });
      const json = parseJson(run);
      expect(json.findings.filter((f) => f.check === "tsc").map((f) => `${f.line} ${f.rule_id}`)).toEqual([
        "1 TS7006",
      ]);
      expect(json.exit_code).toBe(1);
    }
  }, 180_000);
});
