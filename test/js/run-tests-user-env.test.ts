/**
 * run_tests runs a suite in the environment its own run has: the colour variables are the user's, not the
 * server's NO_COLOR=1 / TERM=dumb / FORCE_COLOR=0 (commander.js's `node --test`: 1372 of 1372 directly,
 * 1370 through the server, the two that fail under NO_COLOR=1). Real node --test on a fixture of that shape.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";

/** The user's environment for both runs: a terminal type and no colour variable. */
const USER_ENV = {
  NO_COLOR: undefined,
  FORCE_COLOR: undefined,
  CLICOLOR_FORCE: undefined,
  TERM: "xterm-256color",
};

describe("run_tests in the user's environment", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(path.join(FIXTURES, "js", "node-test-color-env"));
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir, env: USER_ENV });
  });
  afterAll(async () => s?.close());

  it("node --test passes through the server as it passes run directly", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...USER_ENV };
    for (const k of Object.keys(USER_ENV)) if (env[k] === undefined) delete env[k];
    const direct = spawnSync(process.execPath, ["--test", "--test-reporter=tap"], {
      cwd: dir,
      env,
      encoding: "utf8",
    });
    const count = (k: string) => Number(new RegExp(`^# ${k} (\\d+)$`, "m").exec(direct.stdout)?.[1]);
    expect([count("pass"), count("fail")]).toEqual([3, 0]);

    const r = await s.call("run_tests", { path: dir });
    expect(r).toMatchObject({
      success: true,
      passed: true,
      runner: "node",
      summary: { passed: count("pass"), failed: count("fail") },
      failure_count: 0,
    });
  });
});
