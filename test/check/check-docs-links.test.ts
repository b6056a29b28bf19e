/**
 * Issue 39: `check docs`'s links into the rest of the repository (`../README.md`) are no errors: check reads
 * link targets anywhere in the git work tree around the path, read-only (electron's docs had 16 false "outside
 * the allowed paths"; the work tree is now also `check docs`'s default allowed root). Links beyond the work
 * tree still are, and real breaks still are found.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson, runCheck } from "../helpers/check.js";
import { missing, tempDir } from "../helpers/tools.js";
import { treeHash } from "../helpers/tree-hash.js";

describe.skipIf(missing("git"))("check docs in a repository", () => {
  let outer: string;
  let repo: string;
  beforeAll(() => {
    outer = tempDir("mcq-docs-links-");
    repo = path.join(outer, "repo");
    fs.mkdirSync(path.join(repo, "docs"), { recursive: true });
    spawnSync("git", ["init", "-q"], { cwd: repo });
    fs.writeFileSync(path.join(outer, "outside.md"), "# Outside\n");
    fs.writeFileSync(path.join(repo, "README.md"), "# Project\n\nSee [the guide](docs/guide.md).\n");
    fs.writeFileSync(path.join(repo, "SECURITY.md"), "# Security\n\n## Reporting\n\nMail us.\n");
    fs.writeFileSync(
      path.join(repo, "docs", "guide.md"),
      [
        "# Guide",
        "",
        "- [readme](../README.md)",
        "- [reporting](../SECURITY.md#reporting)",
        "- [no such section](../SECURITY.md#nope)",
        "- [no such file](../MISSING.md)",
        "- [outside the repository](../../outside.md)",
        "",
      ].join("\n"),
    );
  });
  afterAll(() => fs.rmSync(outer, { recursive: true, force: true }));

  it("resolves links into the repository, read-only; real breaks and links out of it are still reported", async () => {
    const before = treeHash(repo);
    const run = await runCheck(["docs", "--json"], { cwd: repo });
    expect(treeHash(repo)).toEqual(before);
    const json = parseJson(run);
    expect(json.checks.map((c) => [c.id, c.status])).toEqual([["markdown-links", "findings"]]);
    const messages = json.findings.map((f) => `${f.file}:${f.line} ${(f as { message?: string }).message}`);
    expect(messages).toEqual([
      "docs/guide.md:5 ../SECURITY.md#nope: anchor #nope not found in SECURITY.md",
      "docs/guide.md:6 ../MISSING.md: file not found",
      "docs/guide.md:7 ../../outside.md: resolves outside the allowed paths (not read)",
    ]);
    expect(run.status).toBe(1);
  });
});
