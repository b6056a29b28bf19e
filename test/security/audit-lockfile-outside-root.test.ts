/**
 * audit_dependencies given a directory picks the lockfile (or requirements.txt) in it, then npm / pip-audit
 * and the server read that file. One that is a symlink out of the project must be refused, not read.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

describe("audit_dependencies never reads a dependency file linked from outside", () => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it.each([
    ["package-lock.json", '{ "name": "p", "lockfileVersion": 3, "packages": {} }\n'],
    ["requirements.txt", "requests==2.0.0\n"],
  ])("a %s that is a symlink out of the project gets path_validation", async (name, content) => {
    const outer = tempDir("mcq-audit-link-");
    const proj = path.join(outer, "proj");
    fs.mkdirSync(proj);
    fs.writeFileSync(path.join(proj, "package.json"), '{ "name": "p" }\n');
    fs.writeFileSync(path.join(outer, name), content);
    fs.symlinkSync(path.join(outer, name), path.join(proj, name));
    s = await connectStdio({ args: ["--allowed-paths", proj, "--rate-limit", "false"], cwd: proj });
    const r = await s.call("audit_dependencies", { requirements_file: "." });
    expect(r.success).toBe(false);
    expect(r.error_type).toBe("path_validation");
  });
});
