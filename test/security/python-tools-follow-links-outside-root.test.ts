/**
 * black, flake8, bandit and mypy, given a directory, follow symlinked Python files (and black symlinked
 * folders) wherever they point. A link inside the project that leads out of it must not make a tool
 * read, or autoformat write, files outside the allowed paths: the call is refused before the tool runs.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const OUTSIDE = "import os\nx  =  1\n";

/** proj/pkg/a.py (clean), and a link out of proj: a file (pkg/link.py) or a folder (shared/). */
function layout(kind: "file" | "folder"): { proj: string; outsideFile: string } {
  const outer = tempDir("mcq-py-link-");
  const proj = path.join(outer, "proj");
  fs.mkdirSync(path.join(proj, "pkg"), { recursive: true });
  fs.writeFileSync(path.join(proj, "pkg", "a.py"), "x = 1\n");
  fs.mkdirSync(path.join(outer, "shared"));
  const outsideFile = path.join(outer, "shared", "outside.py");
  fs.writeFileSync(outsideFile, OUTSIDE);
  if (kind === "file") fs.symlinkSync(outsideFile, path.join(proj, "pkg", "link.py"));
  else fs.symlinkSync(path.join(outer, "shared"), path.join(proj, "shared"));
  return { proj, outsideFile };
}

const CASES: [string, string, "file" | "folder", Record<string, unknown>][] = [
  ["black", "autoformat", "file", { formatter: "black" }],
  ["black", "autoformat", "folder", { formatter: "black" }],
  ["black", "format_check", "file", { formatter: "black" }],
  ["flake8", "lint", "file", { linter: "flake8" }],
  ["bandit", "security_scan", "file", {}],
  ["mypy", "type_check", "file", { checker: "mypy" }],
];

describe("Python CLI tools never follow a link out of the project", () => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  for (const [program, tool, kind, extra] of CASES)
    it.skipIf(missing(program))(
      `${program} (${tool}) with a ${kind} link out: path_validation, outside untouched`,
      async () => {
        const { proj, outsideFile } = layout(kind);
        s = await connectStdio({
          args: ["--allowed-paths", proj, "--rate-limit", "false"],
          cwd: proj,
          env: { VIRTUAL_ENV: undefined },
        });
        const r = await s.call(tool, { path: ".", ...extra });
        expect(fs.readFileSync(outsideFile, "utf8")).toBe(OUTSIDE);
        if (tool === "security_scan") {
          // One scanner refused is reported beside the others (the secrets scanner reads no link), no pass.
          const entry = (r.scanners as Record<string, unknown>[]).find((e) => e.name === program);
          expect(entry?.error_type).toBe("path_validation");
          expect(r.passed).toBe(false);
          return;
        }
        expect(r.error_type).toBe("path_validation");
        expect(r.success).toBe(false);
      },
    );

  it.skipIf(missing("black"))("control: without the link, black formats the project", async () => {
    const { proj } = layout("file");
    fs.rmSync(path.join(proj, "pkg", "link.py"));
    s = await connectStdio({ args: ["--allowed-paths", proj, "--rate-limit", "false"], cwd: proj });
    const r = await s.call("format_check", { path: ".", formatter: "black" });
    expect(r.success).toBe(true);
  });
});
