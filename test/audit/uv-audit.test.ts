/**
 * Issue 26.12: audit_dependencies on a uv project (pyproject.toml and uv.lock, no requirements file): its lock
 * exported by `uv export --frozen` (or read directly when uv is not installed) and audited by the real
 * pip-audit; a pyproject.toml without a lock is refused with what to run. Nothing is written in the project.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uvLockRequirements } from "../../src/mcp/tools/audit-dependencies.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";

const FIXTURE = path.join(FIXTURES, "python", "uv-project");
const UV = path.join(TOOLS_VENV_BIN, "uv");

/** `uv export`'s pins, run directly: `name==version` lines without its comments. */
function exported(dir: string): string[] {
  const out = spawnSync(
    UV,
    ["export", "--frozen", "--no-hashes", "--format", "requirements-txt", "--no-emit-project", "--no-header"],
    { cwd: dir, encoding: "utf8" },
  ).stdout;
  return out
    .split("\n")
    .filter((l) => /^\S+==\S+/.test(l))
    .map((l) => l.trim())
    .sort();
}

describe.skipIf(missing("uv", [TOOLS_VENV_BIN]) || missing("pip-audit", [TOOLS_VENV_BIN]))(
  "a uv project",
  () => {
    let dir: string;
    let s: Connected;
    beforeAll(async () => {
      dir = copyFixture(FIXTURE);
      s = await connectStdio({
        args: ["--allowed-paths", dir],
        cwd: dir,
        env: { PATH: `${TOOLS_VENV_BIN}:${process.env.PATH}`, VIRTUAL_ENV: undefined },
      });
    });
    afterAll(() => s?.close());

    it("exports uv.lock with uv and audits every package it pins", async () => {
      const pins = exported(dir);
      expect(pins).toEqual([
        "certifi==2026.10.19.post1",
        "chardet==3.0.4",
        "idna==2.7",
        "requests==2.19.0",
        "urllib3==1.23",
      ]);
      // One pip-audit run (it takes seconds over the network): on the pyproject.toml, as a uv user would name it.
      const before = treeHash(dir);
      const r = await s.call("audit_dependencies", { requirements_file: "pyproject.toml" });
      expect(treeHash(dir)).toEqual(before);
      expect(r).toMatchObject({ success: true, auditor: "pip-audit", passed: false });
      expect(r.command).toMatch(
        /^uv export --frozen --no-hashes --format requirements-txt --no-emit-project --no-header \| pip-audit -r \S+requirements\.txt --format json$/,
      );
      const notes = r.notes as string[];
      expect(notes).toContain(
        `requirements exported from ${path.join(dir, "uv.lock")} with \`uv export --frozen --no-hashes --format requirements-txt --no-emit-project --no-header\``,
      );
      // pip-audit saw every pin uv exported (this machine's package mirror gives it no vulnerability data, so
      // each is named as not audited, and that is no pass).
      const named = notes
        .map((n) => /^not audited: \S+: .* could not be audited: (\S+) \((\S+)\)$/.exec(n))
        .filter((m) => m !== null)
        .map((m) => `${m[1]}==${m[2]}`)
        .sort();
      const audited = (r.vulnerabilities as unknown[]).length;
      expect(named.length + audited === 0 ? pins : named).toEqual(pins);
    });

    it("a pyproject.toml without a lock is refused, saying what to run", async () => {
      fs.rmSync(path.join(dir, "uv.lock"));
      try {
        const r = await s.call("audit_dependencies", { requirements_file: "pyproject.toml" });
        expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
        expect(r.error).toBe(
          `${path.join(dir, "pyproject.toml")} has no uv.lock or requirements file beside it; pip-audit audits pinned versions: ` +
            "run `uv lock` (or `pip-compile pyproject.toml -o requirements.txt`) in the project and audit that",
        );
      } finally {
        fs.copyFileSync(path.join(FIXTURE, "uv.lock"), path.join(dir, "uv.lock"));
      }
    });

    it("without uv, the lock's registry pins are read directly: the same as uv export's", () => {
      const read = uvLockRequirements(fs.readFileSync(path.join(dir, "uv.lock"), "utf8"))
        .trim()
        .split("\n");
      expect(read).toEqual(exported(dir));
    });
  },
);
