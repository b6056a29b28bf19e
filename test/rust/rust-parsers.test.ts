/** The Rust output parsers on output captured from the real toolchain (cargo 1.95, clippy, libtest). */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseCargoMessages, shortFormat } from "../../src/adapters/rust/cargo-messages.js";
import { parseCargoTestOutput } from "../../src/adapters/rust/cargo-test.js";
import { parseRustfmtDiffFiles } from "../../src/adapters/rust/rustfmt.js";
import { FIXTURES } from "../helpers/server.js";

const captured = (name: string) => fs.readFileSync(path.join(FIXTURES, "rust", "captured", name), "utf8");

describe("Rust parsers", () => {
  it("clippy JSON: findings with corrections and seed 000's short lines", () => {
    const { findings, buildFailed } = parseCargoMessages(captured("clippy.jsonl"), "/proj", "clippy");
    expect(buildFailed).toBe(false);
    expect(findings.map((f) => shortFormat(f, "src/lib.rs"))).toEqual([
      "src/lib.rs:2:5: warning: unneeded `return` statement",
      "src/lib.rs:5:24: warning: writing `&Vec` instead of `&[_]` involves a new object where a slice will do",
      "src/lib.rs:6:5: warning: length comparison to zero: help: using `is_empty` is clearer and more explicit: `v.is_empty()`",
    ]);
    expect(findings[2]).toMatchObject({
      file: "/proj/src/lib.rs",
      rule_id: "clippy::len_zero",
      correction: {
        safe: true,
        edits: [{ line: 6, column: 5, end_line: 6, end_column: 17, text: "v.is_empty()" }],
      },
    });
  });

  it("libtest output: summed results, the panic location, the message without the backtrace", () => {
    const report = parseCargoTestOutput(captured("cargo-test.txt"), "/proj");
    expect(report.binaries).toBe(2);
    expect(report.summary).toEqual({ passed: 1, failed: 1, ignored: 1, measured: 0, filtered_out: 0 });
    expect(report.failures).toEqual([
      {
        node_id: "tests::fails",
        kind: "failed",
        file: "/proj/src/lib.rs",
        line: 18,
        message: "assertion `left == right` failed: two plus two\n  left: 4\n right: 5",
      },
    ]);
  });

  it("rustfmt check output: the files of the `Diff in` headers, old and new spellings", () => {
    expect(
      parseRustfmtDiffFiles(
        "Diff in /p/src/a.rs:6:\n x\nDiff in /p/src/a.rs:9:\nDiff in /p/b.rs at line 1:\n",
      ),
    ).toEqual(["/p/src/a.rs", "/p/b.rs"]);
  });
});
