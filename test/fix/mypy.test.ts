import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { copyFixture } from "../helpers/tools.js";
import { noMypy, serverFor, TYPECOMMENT_PROJECT } from "./helpers.js";

describe("mypy through type_check, as fix_all verifies with it", () => {
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
      'pkg/size.py:3:1: name-defined Name "List" is not defined\nDid you forget to import it from "typing"? (Suggestion: "from typing import List")',
    ]);
    expect(fs.existsSync(path.join(dir, ".mypy_cache"))).toBe(false);
  });
});
