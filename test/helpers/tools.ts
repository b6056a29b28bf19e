/**
 * External tools in tests: outside CI a test whose tool is missing is skipped and says which; under
 * CI=true it runs (and fails), since CI installs every tool.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findExecutable } from "../../src/exec/which.js";

export const IN_CI = process.env.CI === "true";

/** True when a test needing `program` should be skipped (missing here and not in CI). */
export function missing(program: string, searchDirs: string[] = []): boolean {
  const absent = findExecutable(program, searchDirs) === undefined;
  if (absent && !IN_CI) process.stderr.write(`skipping tests that need ${program}: it is not installed\n`);
  return absent && !IN_CI;
}

/** A fresh copy of a fixture directory in the temp dir (so tests that write leave fixtures alone). */
export function copyFixture(fixtureDir: string): string {
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), `mcq-${path.basename(fixtureDir)}-`));
  fs.cpSync(fixtureDir, dest, { recursive: true });
  return fs.realpathSync(dest);
}

/** A new empty temp directory, canonical. */
export function tempDir(prefix = "mcq-"): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** The project's tool virtualenv made by scripts/install-tools.sh (ruff CLI etc.), if present. */
export const TOOLS_VENV_BIN = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  "../../.tools/venv/bin",
);

/** Go tools (staticcheck, golint) installed by scripts/install-tools.sh with `go install`. */
export const TOOLS_GO_BIN = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  "../../.tools/go/bin",
);
