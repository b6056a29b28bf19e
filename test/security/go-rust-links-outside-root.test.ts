/**
 * gofmt, golangci-lint fmt, rustfmt (cargo fmt) and clippy follow links in the project as every other tool
 * does: a `.go` file that is a link, or a `mod m;` whose `src/m.rs` is a link out of the allowed root, would let
 * format_check show, and autoformat or lint_fix rewrite, a file outside. The same link rule as for the
 * other tools refuses the call before the tool runs, with the sandbox on and off (the sandbox is the
 * backstop: the file outside is not in its view at all).
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const OUTSIDE_GO = "package main\n\nfunc  outside( )  int {\nreturn 1\n}\n";
const OUTSIDE_RS = "pub fn g()->u32{ return 1; }\n";

/** proj/ (a Go module, or a crate) and outer/shared/<file> reached from proj through a link. */
function layout(kind: "go" | "rust"): { proj: string; outsideFile: string; content: string } {
  const outer = tempDir(`mcq-${kind}-link-`);
  const proj = path.join(outer, "proj");
  fs.mkdirSync(path.join(outer, "shared"));
  if (kind === "go") {
    fs.mkdirSync(proj);
    fs.writeFileSync(path.join(proj, "go.mod"), "module example.com/linked\n\ngo 1.21\n");
    fs.writeFileSync(path.join(proj, "main.go"), "package main\n\nfunc main() { _ = outside() }\n");
    const outsideFile = path.join(outer, "shared", "outside.go");
    fs.writeFileSync(outsideFile, OUTSIDE_GO);
    fs.symlinkSync(outsideFile, path.join(proj, "linked.go"));
    return { proj, outsideFile, content: OUTSIDE_GO };
  }
  fs.mkdirSync(path.join(proj, "src"), { recursive: true });
  fs.writeFileSync(
    path.join(proj, "Cargo.toml"),
    '[package]\nname = "linked"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
  );
  fs.writeFileSync(path.join(proj, "src", "lib.rs"), "mod m;\n\npub fn f() -> u32 {\n    m::g()\n}\n");
  const outsideFile = path.join(outer, "shared", "m.rs");
  fs.writeFileSync(outsideFile, OUTSIDE_RS);
  fs.symlinkSync(outsideFile, path.join(proj, "src", "m.rs"));
  return { proj, outsideFile, content: OUTSIDE_RS };
}

const CASES: ["go" | "rust", string, string, Record<string, unknown>][] = [
  ["go", "gofmt", "format_check", { language: "go", diff: true }],
  ["go", "gofmt", "autoformat", { language: "go" }],
  ["go", "golangci-lint", "format_check", { formatter: "golangci-lint", diff: true }],
  ["go", "golangci-lint", "autoformat", { formatter: "golangci-lint" }],
  ["rust", "cargo", "format_check", { language: "rust", diff: true }],
  ["rust", "cargo", "autoformat", { language: "rust" }],
  ["rust", "cargo", "lint_fix", { linter: "clippy" }],
  ["rust", "cargo", "lint", { linter: "clippy" }],
];

describe("Go and Rust tools never follow a link out of the project", () => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  for (const sandbox of ["off", "auto"])
    for (const [kind, program, tool, extra] of CASES)
      it.skipIf(missing(program))(
        `${tool} ${JSON.stringify(extra)} with a ${kind} source linked from outside (--sandbox ${sandbox}): path_validation, outside untouched`,
        async () => {
          const { proj, outsideFile, content } = layout(kind);
          s = await connectStdio({
            args: ["--allowed-paths", proj, "--rate-limit", "false", "--sandbox", sandbox],
            cwd: proj,
          });
          const r = await s.call(tool, { path: ".", ...extra });
          expect(fs.readFileSync(outsideFile, "utf8")).toBe(content);
          expect(r).toMatchObject({ success: false, error_type: "path_validation" });
          expect(String(r.error)).toContain("lead outside the allowed paths");
          expect(JSON.stringify(r)).not.toContain("outside( )");
        },
        120_000,
      );

  it.skipIf(missing("gofmt"))(
    "control: with the linked file copied in instead, gofmt checks and lists it",
    async () => {
      const { proj, outsideFile } = layout("go");
      fs.rmSync(path.join(proj, "linked.go"));
      fs.copyFileSync(outsideFile, path.join(proj, "linked.go"));
      s = await connectStdio({ args: ["--allowed-paths", proj, "--rate-limit", "false"], cwd: proj });
      const r = await s.call("format_check", { path: ".", language: "go" });
      expect(r).toMatchObject({ success: true, formatted: false, unformatted_files: ["linked.go"] });
    },
  );
});
