/**
 * config.weakened compares the rules set to error that an edit removes with those it adds (the real server's
 * policy_check_edit): reordering `"semi": "error"` and `"eqeqeq": "error"` on one line, `"semi": "error"`
 * becoming `["error", "always"]`, or a rule added on the same line weakens nothing; a rule dropped does.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

let project: string;
let server: Connected;
beforeAll(async () => {
  project = tempDir("mcq-config-reorder-");
  server = await connectStdio({ args: ["--allowed-paths", project], cwd: project });
});
afterAll(async () => server?.close());

const BEFORE = 'export default [{ rules: { "semi": "error", "eqeqeq": "error" } }];\n';
const check = (after: string, file = "eslint.config.js") =>
  server.call("policy_check_edit", { path: path.join(project, file), before: BEFORE, after });

describe("config.weakened on rule settings", () => {
  it("a reorder, a longer form of error, or a rule added on the line is no weakening", async () => {
    for (const after of [
      'export default [{ rules: { "eqeqeq": "error", "semi": "error" } }];\n',
      'export default [{ rules: { "semi": ["error", "always"], "eqeqeq": "error" } }];\n',
      'export default [{ rules: { "semi": "error", "eqeqeq": "error", "curly": "error" } }];\n',
    ]) {
      const r = await check(after);
      expect(r.status, `${after}: ${JSON.stringify(r)}`).toBe("allowed");
    }
  });

  it("a rule set to error that is dropped, or turned off, is a weakening", async () => {
    for (const after of [
      'export default [{ rules: { "semi": "error" } }];\n',
      'export default [{ rules: { "semi": "error", "eqeqeq": "off" } }];\n',
    ]) {
      const r = await check(after);
      expect(r.status, after).toBe("blocked");
      expect(JSON.stringify(r)).toContain("config.weakened");
    }
  });
});
