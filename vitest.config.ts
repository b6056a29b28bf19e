import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two files at a time on CI's 2 cores: most of a test's time is a tool or a server process it waits for,
    // and vitest's default (cores - 1) ran the suite one file after another (1,090 s; a sample of 26 files
    // took 168 s one by one and 92 s two at a time).
    maxWorkers: 2,
    // The suite's servers run without the result cache (a second call must reach the tool, workers and
    // daemons); the tests of the cache turn it on with a folder of their own (test/cache/).
    env: { MCP_CODE_QUALITY_RESULT_CACHE: "false" },
  },
});
