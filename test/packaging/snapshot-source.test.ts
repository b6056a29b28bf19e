/**
 * The rewrite every snapshot bundle goes through (scripts/snapshot-source.mjs): esbuild's CommonJS interop
 * wrapper made once per module and shared by its import sites (it made a getter per export per site: ~19,000
 * in the command line's heap), with the same answers: default and named imports of a Node module, and a
 * module imported while still loading (its later exports are seen by the later sites).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { finishSnapshotSource, shareInteropWrappers } from "../../scripts/snapshot-source.mjs";
import { tempDir } from "../helpers/tools.js";

/** A CommonJS bundle of ESM modules as scripts/bundle-cli.mjs makes one; prints what `main` returns. */
async function bundle(files: Record<string, string>): Promise<string> {
  const dir = tempDir("mcq-snapshot-source-");
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const outfile = path.join(dir, "out.cjs");
  await build({
    entryPoints: [path.join(dir, "main.mjs")],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    minifyWhitespace: true,
    logLevel: "silent",
  });
  return outfile;
}

const run = (file: string) => execFileSync(process.execPath, [file], { encoding: "utf8" }).trim();

const NODE_SITES = {
  "a.mjs": 'import fs from "node:fs";\nimport * as all from "node:fs";\nexport const a = { fs, all };\n',
  "b.mjs": 'import fs, { readFileSync } from "node:fs";\nexport const b = { fs, readFileSync };\n',
  "main.mjs":
    'import fs from "node:fs";\nimport { a } from "./a.mjs";\nimport { b } from "./b.mjs";\n' +
    "console.log(JSON.stringify({\n" +
    "  defaults: a.fs === fs && b.fs === fs,\n" +
    "  named: b.readFileSync === fs.readFileSync && a.all.readFileSync === fs.readFileSync,\n" +
    '  text: b.readFileSync(process.argv[1], "utf8").length > 0,\n' +
    "}));\n",
};

describe("the snapshot bundles' interop wrappers", () => {
  it("are shared by a module's import sites, with the same default and named imports", async () => {
    const out = await bundle(NODE_SITES);
    const before = run(out);
    shareInteropWrappers(out);
    expect(run(out)).toBe(before);
    expect(JSON.parse(run(out))).toEqual({ defaults: true, named: true, text: true });
    // One wrapper of node:fs for its three sites, where esbuild's helper made three.
    const probe = `${out}.probe.cjs`;
    fs.writeFileSync(
      probe,
      fs
        .readFileSync(out, "utf8")
        .replace(
          "var __toESMEach=",
          "var __made=0;var __toESMEach=(...a)=>(__made++,__toESMEach0(...a));var __toESMEach0=",
        ) + "\nconsole.log(__made);",
    );
    expect(run(probe).split("\n").at(-1)).toBe("1");
  });

  it("are made anew for a module whose exports changed since a site took one (a cycle still loading)", async () => {
    const out = await bundle({
      // CommonJS that requires an ESM module importing it back: that module's import sees it half-loaded.
      "dep.cjs":
        'exports.early = 1;\nconst seen = require("./early.mjs").seen;\nexports.late = 2;\nexports.seenEarly = seen;\n',
      "early.mjs":
        'import * as dep from "./dep.cjs";\nexport const seen = () => Object.keys(dep).sort().join(",");\n',
      "main.mjs":
        'import * as dep from "./dep.cjs";\nconsole.log(JSON.stringify({ now: Object.keys(dep).sort().join(","), then: dep.seenEarly() }));\n',
    });
    const before = run(out);
    finishSnapshotSource(out);
    expect(run(out)).toBe(before);
    expect(JSON.parse(run(out)).now).toContain("late");
  });

  it("fails the build when esbuild's helper is not where the rewrite expects it", () => {
    const file = path.join(tempDir("mcq-snapshot-source-"), "x.cjs");
    fs.writeFileSync(file, "console.log(1);\n");
    expect(() => shareInteropWrappers(file)).toThrow(/__toESM helper is not there once/);
  });
});
