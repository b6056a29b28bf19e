import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // The suite's servers run without the result cache (a second call must reach the tool, workers and
    // daemons); the tests of the cache turn it on with a folder of their own (test/cache/).
    env: { MCP_CODE_QUALITY_RESULT_CACHE: "false" },
  },
});
