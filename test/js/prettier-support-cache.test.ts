/**
 * What a Prettier formats (its support information: extensions and file names) is asked of it once and
 * remembered in the result cache by its entry file, so a `check` whose files' verdicts are all known starts
 * no Prettier worker, and its answer can be kept and replayed (src/check/answer/). Real bin, real Prettier
 * (the project's own copy, so that it can be changed), a copy of the JS fixture.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { expect, it } from "vitest";
import { CHECK_FIXTURES, PATH_WITH_TOOLS } from "../helpers/check.js";
import { REPO_ROOT } from "../helpers/server.js";
import { copyFixture, tempDir } from "../helpers/tools.js";

const BIN = path.join(REPO_ROOT, "bin", "mcp-code-quality");
const BUNDLED_PRETTIER = path.dirname(createRequire(import.meta.url).resolve("prettier/package.json"));

it("asks a Prettier what it formats once, and again when it is another file", () => {
  const project = copyFixture(path.join(CHECK_FIXTURES, "js"));
  const own = path.join(project, "node_modules", "prettier");
  fs.cpSync(BUNDLED_PRETTIER, own, { recursive: true });
  const cache = tempDir("mcq-prettier-support-");
  const audit = path.join(cache, "audit.log");
  const check = () => {
    const r = spawnSync(BIN, ["check", ".", "--only", "prettier", "--json", "--audit-log", audit], {
      cwd: project,
      env: {
        ...process.env,
        PATH: PATH_WITH_TOOLS,
        XDG_CACHE_HOME: cache,
        MCP_CODE_QUALITY_RESULT_CACHE: "true",
        MCP_CODE_QUALITY_CHECK_REPLAY: "explain",
      },
      encoding: "utf8",
    });
    // The report without its timings (all that two runs may differ in).
    const report = JSON.parse(r.stdout, (k, v: unknown) => (k === "duration_ms" ? undefined : v)) as {
      checks: { id: string; status: string }[];
    };
    return { status: r.status, stderr: r.stderr, report };
  };
  const first = check();
  // The fixture has two files Prettier would change.
  expect(first.report.checks).toEqual([expect.objectContaining({ id: "prettier", status: "findings" })]);
  // The first run asked Prettier (its worker): nothing it read can vouch for that.
  expect(first.stderr).toMatch(/check: answer not kept: ran /m);
  // Every verdict and what Prettier formats known: no worker, so the answer is kept, then replayed.
  const second = check();
  expect(second.stderr).toMatch(/check: answer kept$/m);
  expect(check().stderr).toMatch(/check: replayed$/m);
  // Another Prettier at the same place (its entry file changed): asked again, the same verdict.
  const entry = path.join(own, "index.cjs");
  const later = new Date(Date.now() + 5_000);
  fs.utimesSync(entry, later, later);
  const changed = check();
  expect(changed.stderr).toMatch(/no replay: changed: .*index\.cjs/);
  expect(changed.stderr).toMatch(/check: answer not kept: ran /m);
  expect(changed.report).toEqual(first.report);
  expect(changed.status).toBe(first.status);
});
