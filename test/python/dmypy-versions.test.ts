/**
 * Issue 26.9: the mypy daemon works with the project's own mypy, whatever its version. Each mypy frames its
 * daemon's messages differently (Debian's 1.0.1: one JSON object each way; 1.15: base64 and a space; 2.4: a
 * length header); the second type_check must be answered warm by the daemon of that mypy, with what that
 * mypy prints when run directly.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DmypyReader, dmypyFraming, encodeDmypyMessage } from "../../src/adapters/python/dmypy.js";
import { connectStdio, REPO_ROOT } from "../helpers/server.js";
import { IN_CI, tempDir } from "../helpers/tools.js";

const MYPYS = [
  { label: "Debian's mypy 1.0.1", bin: "/usr/bin", framing: "eof" },
  {
    label: "mypy 1.15.0 from PyPI",
    bin: path.join(REPO_ROOT, ".tools", "mypy-1.15", "bin"),
    framing: "base64",
  },
  {
    label: "mypy 2.4.1 from PyPI",
    bin: path.join(REPO_ROOT, ".tools", "mypy-2.4", "bin"),
    framing: "length",
  },
] as const;

const absent = (bin: string) => !fs.existsSync(path.join(bin, "dmypy")) && !IN_CI;

function project(): string {
  const dir = tempDir("mcq-dmypy-versions-");
  fs.writeFileSync(path.join(dir, "mypy.ini"), "[mypy]\n");
  fs.writeFileSync(path.join(dir, "app.py"), 'count: int = "one"\n');
  return dir;
}

describe("the mypy daemon of each mypy version", () => {
  for (const m of MYPYS)
    it.skipIf(absent(m.bin))(
      `${m.label}: warm from the second call, with what that mypy prints`,
      async () => {
        const dir = project();
        const mypy = path.join(m.bin, "mypy");
        const version =
          /mypy (\S+)/.exec(spawnSync(mypy, ["--version"], { encoding: "utf8" }).stdout)?.[1] ?? "";
        expect(dmypyFraming(version)).toBe(m.framing);
        const direct = () =>
          spawnSync(mypy, ["--show-error-codes", "--no-error-summary", "--no-incremental", "app.py"], {
            cwd: dir,
            encoding: "utf8",
          })
            .stdout.trim()
            .split("\n")
            .map((l) => l.replace(/^app\.py:(\d+): /, "app.py:$1:"));
        const s = await connectStdio({
          args: ["--allowed-paths", dir, "--rate-limit", "false"],
          cwd: dir,
          env: { PATH: `${m.bin}:${process.env.PATH}`, VIRTUAL_ENV: undefined },
        });
        try {
          const first = await s.call("type_check", { path: ".", checker: "mypy" });
          expect(first.notes).toContainEqual(
            expect.stringMatching(/^mypy daemon \(dmypy \S+\) started, pid \d+/),
          );
          const second = await s.call("type_check", { path: ".", checker: "mypy" });
          const warm = (second.notes as string[]).find((n) => n.startsWith("warm mypy daemon"));
          expect(warm).toMatch(
            new RegExp(
              `^warm mypy daemon \\(dmypy ${version.replace(/[.+]/g, "\\$&")}\\) pid \\d+, request 2$`,
            ),
          );
          expect(second.notes).not.toContainEqual(expect.stringMatching(/no usable answer|ran cold/));
          // The same diagnostic as that mypy's own (its line and code; the server adds the column).
          expect(second.issue_count).toBe(direct().length);
          expect(
            (second.issues as string[]).map((i) => i.replace(/^app\.py:(\d+):\d+: (\S+) /, "app.py:$1: ")),
          ).toEqual(
            direct().map((l) => l.replace(/^app\.py:(\d+):error: (.*) {2}\[(\S+)\]$/, "app.py:$1: $2")),
          );
          // An edit between two warm checks is seen.
          fs.writeFileSync(path.join(dir, "app.py"), "count: int = 1\n");
          const third = await s.call("type_check", { path: ".", checker: "mypy" });
          expect(third).toMatchObject({ passed: true, issue_count: 0 });
          expect(third.notes).toContainEqual(expect.stringMatching(/^warm mypy daemon .* request 3$/));
        } finally {
          await s.close();
        }
      },
    );
});

describe("dmypy framings", () => {
  it("reads a split stream of stdout messages and the final answer", () => {
    for (const framing of ["base64", "length"] as const) {
      const bytes = Buffer.concat([
        encodeDmypyMessage(JSON.stringify({ stdout: "debug\n" }), framing),
        encodeDmypyMessage(JSON.stringify({ out: "a.py:1: error: x\n", status: 1, final: true }), framing),
      ]);
      const reader = new DmypyReader(framing);
      let answer;
      for (let i = 0; i < bytes.length && !answer; i += 3) answer = reader.push(bytes.subarray(i, i + 3));
      expect(answer).toEqual({ out: "a.py:1: error: x\n", status: 1 });
    }
    const eof = new DmypyReader("eof");
    expect(eof.push(Buffer.from('{"out": "", "status": 0}'))).toBeUndefined();
    expect(eof.end()).toEqual({ out: "", status: 0 });
  });
});
