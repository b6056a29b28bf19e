import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mypyArgs, parseMypy } from "../../src/adapters/python/mypy.js";
import { copyFixture } from "../helpers/tools.js";
import { noMypy, serverFor, TYPECOMMENT_PROJECT } from "./helpers.js";

// Captured from mypy 1.0.1 with mypyArgs(...) on a file whose `from typing import List` was removed.
const OUTPUT = [
  'size.py:3:1: error: Name "List" is not defined  [name-defined]',
  'size.py:3:1: note: Did you forget to import it from "typing"? (Suggestion: "from typing import List")',
].join("\n");

describe("mypy type checker (minimal, for fix_all's verification)", () => {
  it("never writes a cache into the project and passes paths after --", () => {
    const args = mypyArgs("/p", { strict: true });
    expect(args.slice(args.indexOf("--cache-dir"), args.indexOf("--cache-dir") + 2)).toEqual([
      "--cache-dir",
      "/dev/null",
    ]);
    expect(args.slice(-2)).toEqual(["--", "/p"]);
    expect(args).toContain("--strict");
  });

  it("parses errors and notes", () => {
    expect(parseMypy(OUTPUT, "/p")).toEqual([
      {
        tool: "mypy",
        file: "/p/size.py",
        line: 3,
        column: 1,
        rule_id: "name-defined",
        severity: "error",
        message: 'Name "List" is not defined',
      },
      {
        tool: "mypy",
        file: "/p/size.py",
        line: 3,
        column: 1,
        rule_id: "note",
        severity: "info",
        message: 'Did you forget to import it from "typing"? (Suggestion: "from typing import List")',
      },
    ]);
  });

  it.skipIf(noMypy())("type_check runs the real mypy", async () => {
    const dir = copyFixture(TYPECOMMENT_PROJECT);
    const file = path.join(dir, "pkg", "size.py");
    const s = await serverFor(dir);
    const clean = await s.call("type_check", { path: ".", checker: "mypy" });
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("from typing import List\n", ""));
    const broken = await s.call("type_check", { path: ".", checker: "mypy" });
    await s.close();
    expect(clean).toMatchObject({ success: true, passed: true, issue_count: 0 });
    expect(broken).toMatchObject({ success: true, passed: false });
    expect(broken.issues).toEqual([
      'pkg/size.py:3:1: name-defined Name "List" is not defined',
      'pkg/size.py:3:1: note Did you forget to import it from "typing"? (Suggestion: "from typing import List")',
    ]);
    expect(fs.existsSync(path.join(dir, ".mypy_cache"))).toBe(false);
  });
});
