/**
 * An install whose `node_modules` is a link to another checkout's (a git worktree, an `npm link`): the sandbox
 * showed the install but not where its link leads, so the bundled ESLint could not load `@eslint/js` and every
 * lint failed. Where the install's top-level links lead is shown read-only with it. A copy of the built server
 * with its node_modules linked, the real bubblewrap, the real ESLint, compared with this install's run.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO_ROOT } from "../helpers/server.js";
import { parseJson, runCheck } from "../helpers/check.js";
import { tempDir } from "../helpers/tools.js";
import { probeSandbox } from "../../src/exec/sandbox/launch.js";

describe("an install whose node_modules is a link", () => {
  it("lints with the bundled ESLint in the sandbox, as the install it links to does", async () => {
    expect(probeSandbox()).toMatchObject({ available: true });
    const install = fs.realpathSync(tempDir("mcq-linked-install-"));
    for (const name of ["dist", "package.json", "policy", "data", "ruby"])
      fs.cpSync(path.join(REPO_ROOT, name), path.join(install, name), { recursive: true });
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(install, "node_modules"));
    const project = tempDir("mcq-linked-project-");
    fs.writeFileSync(path.join(project, "a.js"), "const a = 1;\nconsole.log(a);\nvar unused = 2;\n");
    const args = [".", "--only", "eslint", "--json", "--sandbox", "required"];
    const own = parseJson(await runCheck(args, { cwd: project }));
    const linked = parseJson(
      await runCheck(args, {
        cwd: project,
        program: [process.execPath, path.join(install, path.relative(REPO_ROOT, CLI))],
      }),
    );
    expect(own.checks.map((c) => c.status)).toEqual(["findings"]);
    expect(linked.checks.map((c) => [c.status, c.finding_count])).toEqual(
      own.checks.map((c) => [c.status, c.finding_count]),
    );
  }, 120_000);
});
