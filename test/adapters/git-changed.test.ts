/**
 * changedFiles (src/adapters/git-changed.ts) on a real git repository the test makes, with the real git
 * run through the bounded runner: tracked changes since HEAD or a revision, untracked files (also from a
 * subfolder, where git names them from the top), staged-only, deleted files left out, non-ASCII names.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { changedFiles, checkRevision } from "../../src/adapters/git-changed.js";
import { Services } from "../../src/engine/services.js";
import type { SandboxRun, ToolContext } from "../../src/engine/tool.js";
import type { SandboxMode } from "../../src/exec/sandbox/launch.js";
import { runBounded } from "../../src/exec/runner.js";
import { tempDir } from "../helpers/tools.js";

/**
 * The part of a ToolContext changedFiles uses: `run`, through the real bounded runner, and `sandbox`: the
 * read-only sandbox of a call whose allowed root holds the test repositories (the temp folder).
 */
const sandbox = (): SandboxRun => ({
  mode: (process.env.MCP_CODE_QUALITY_SANDBOX ?? "auto") as SandboxMode,
  request: { kind: "read", roots: [fs.realpathSync(os.tmpdir())] },
});
const ctx = {
  sandbox,
  // Where a caller hands over what it knows of the index (the pre-commit hook); none here: git is asked.
  services: new Services(),
  run: (o: Parameters<ToolContext["run"]>[0]) =>
    runBounded({
      sandbox: sandbox(),
      ...o,
      cwd: o.cwd ?? process.cwd(),
      timeoutMs: 30_000,
      maxOutputBytes: 1 << 20,
    }),
} as unknown as ToolContext;

describe("changedFiles", () => {
  let repo: string;
  let first: string;
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], {
      cwd: repo,
      encoding: "utf8",
    });
  const rel = (files: string[]) => files.map((f) => path.relative(repo, f));

  beforeAll(() => {
    repo = tempDir("mcq-git-changed-");
    fs.mkdirSync(path.join(repo, "sub"));
    for (const f of ["a.py", "b.py", "gone.py", "sub/c.py"]) fs.writeFileSync(path.join(repo, f), "x = 1\n");
    fs.writeFileSync(path.join(repo, ".gitignore"), "ignored.py\n");
    git("init", "-q");
    git("add", ".");
    git("commit", "-q", "-m", "one");
    first = git("rev-parse", "HEAD").trim();
    fs.writeFileSync(path.join(repo, "b.py"), "x = 2\n");
    git("commit", "-q", "-am", "two");
    // Work tree: a.py modified, gone.py deleted, a staged new file, untracked files, an ignored one.
    fs.writeFileSync(path.join(repo, "a.py"), "x = 3\n");
    fs.rmSync(path.join(repo, "gone.py"));
    fs.writeFileSync(path.join(repo, "staged.py"), "y = 1\n");
    git("add", "staged.py");
    fs.writeFileSync(path.join(repo, "sub", "new.py"), "z = 1\n");
    fs.writeFileSync(path.join(repo, "ünï.py"), "u = 1\n");
    fs.writeFileSync(path.join(repo, "ignored.py"), "i = 1\n");
  });

  it("since HEAD: modified and staged tracked files plus untracked ones, deleted and ignored left out", async () => {
    expect(rel(await changedFiles(ctx, repo, { kind: "since", revision: "HEAD" }))).toEqual([
      "a.py",
      "staged.py",
      "sub/new.py",
      "ünï.py",
    ]);
  });

  it("since a revision: what changed since then too", async () => {
    expect(rel(await changedFiles(ctx, repo, { kind: "since", revision: first }))).toEqual([
      "a.py",
      "b.py",
      "staged.py",
      "sub/new.py",
      "ünï.py",
    ]);
  });

  it("from a subfolder: only its files, untracked ones included", async () => {
    expect(rel(await changedFiles(ctx, path.join(repo, "sub"), { kind: "since", revision: "HEAD" }))).toEqual(
      ["sub/new.py"],
    );
  });

  it("staged: the index only", async () => {
    expect(rel(await changedFiles(ctx, repo, { kind: "staged" }))).toEqual(["staged.py"]);
  });

  it("an unknown revision, an option-like one, or no repository is invalid_input", async () => {
    await expect(changedFiles(ctx, repo, { kind: "since", revision: "nope" })).rejects.toMatchObject({
      errorType: "invalid_input",
    });
    expect(() => checkRevision("--output=/tmp/x")).toThrow(/not a git revision/);
    expect(() => checkRevision("a..b")).toThrow(/not a git revision/);
    await expect(changedFiles(ctx, tempDir(), { kind: "since", revision: "HEAD" })).rejects.toMatchObject({
      errorType: "invalid_input",
    });
  });
});
