/**
 * Fingerprints (mcq/v1) survive lines inserted above a finding, and twin findings (same rule, same
 * source text) in one file differ by their rank.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const TWINS = "def a(x):\n    return x == None\n\n\ndef b(x):\n    return x == None\n";

async function fingerprints(s: Connected): Promise<{ rule: string; line: number; fp: string }[]> {
  const r = await s.call("lint", { path: "twins.py", output: "sarif" });
  const log = r.sarif as {
    runs: {
      results: {
        ruleId: string;
        locations: { physicalLocation: { region: { startLine: number } } }[];
        partialFingerprints: Record<string, string>;
      }[];
    }[];
  };
  return log.runs[0]!.results.map((x) => ({
    rule: x.ruleId,
    line: x.locations[0]!.physicalLocation.region.startLine,
    fp: x.partialFingerprints["mcq/v1"]!,
  }));
}

describe("fingerprints", () => {
  let s: Connected;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir("mcq-fingerprints-");
    fs.writeFileSync(path.join(dir, "pyproject.toml"), '[tool.ruff.lint]\nselect = ["E711"]\n');
    fs.writeFileSync(path.join(dir, "twins.py"), TWINS);
    // The embedded ruff: no external tool needed.
    s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
    });
  });
  afterAll(() => s?.close());

  it("twins differ; lines inserted above change nothing", async () => {
    const before = await fingerprints(s);
    expect(before.map((f) => [f.rule, f.line])).toEqual([
      ["E711", 2],
      ["E711", 6],
    ]);
    expect(before[0]!.fp).not.toBe(before[1]!.fp);
    expect(before[0]!.fp).toMatch(/^mcq\/v1:[0-9a-f]{32}:0$/);
    expect(before[1]!.fp).toMatch(/:1$/);

    fs.writeFileSync(path.join(dir, "twins.py"), `import sys\n\nprint(sys.argv)\n\n\n${TWINS}`);
    const shifted = await fingerprints(s);
    expect(shifted.map((f) => f.line)).toEqual([7, 11]);
    expect(shifted.map((f) => f.fp)).toEqual(before.map((f) => f.fp));
  });

  it("a different source line gives a different fingerprint", async () => {
    fs.writeFileSync(
      path.join(dir, "twins.py"),
      TWINS.replace("return x == None\n\n\n", "return x == None  # a\n\n\n"),
    );
    const changed = await fingerprints(s);
    fs.writeFileSync(path.join(dir, "twins.py"), TWINS);
    const original = await fingerprints(s);
    expect(changed[0]!.fp).not.toBe(original[0]!.fp);
    // The second twin is now the only one with its text: rank 0, the first one's former fingerprint.
    expect(changed[1]!.fp).toBe(original[0]!.fp);
  });
});
