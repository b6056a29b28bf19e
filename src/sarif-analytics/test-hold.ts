/**
 * TEST ONLY. With MCP_CODE_QUALITY_TEST_ANALYTICS_HOLD=<file> in the server's environment, an off-thread SARIF
 * analysis writes `<file>.started`, then waits (blocking its own thread, as a long analysis does) until
 * `<file>` exists, and writes `<file>.finished` once it has answered: a test can hold an analysis at a known
 * point, call the server meanwhile, and see whether a cancelled analysis ever finished. Never set it otherwise.
 */
import fs from "node:fs";

export const TEST_HOLD_ENV = "MCP_CODE_QUALITY_TEST_ANALYTICS_HOLD";

/** Holds the thread while the release file is missing; returns the file to write when done, if holding. */
export function holdForTest(): string | undefined {
  const file = process.env[TEST_HOLD_ENV];
  if (!file) return undefined;
  fs.writeFileSync(`${file}.started`, "");
  const nap = new Int32Array(new SharedArrayBuffer(4));
  while (!fs.existsSync(file)) Atomics.wait(nap, 0, 0, 20);
  return `${file}.finished`;
}
