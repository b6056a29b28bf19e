/**
 * The pure parts of the rewrite model: which source and paths each git command rewrites from (rewrites.ts,
 * on git's argv as argv.ts reads it), and the readers of git's own output (rev-files.ts) against real git in
 * a scratch repository: `ls-tree -r -z`, `ls-files -s -z`, `diff-tree -r -z --raw`, `cat-file --batch`, and
 * the blob hash against `git hash-object`.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readGit } from "../../src/policy/git/argv.js";
import { blobSha, parseBatch, parseEntries, parseRawDiff } from "../../src/policy/git/rev-files.js";
import { rewriteSpec } from "../../src/policy/git/rewrites.js";
import { tempDir } from "../helpers/tools.js";

const specOf = (line: string) => {
  const argv = line.split(" ");
  const inv = readGit(
    argv,
    argv.map(() => false),
    {},
    "/r",
    new Map(),
    () => null,
  );
  return rewriteSpec(inv, argv.slice(argv.indexOf(inv.subcommand) + 1));
};

describe("rewriteSpec", () => {
  it.each([
    ["git stash pop", { kind: "stash", rev: "stash@{0}" }, []],
    ["git stash apply 2", { kind: "stash", rev: "stash@{2}" }, []],
    ["git reset --hard", { kind: "tree", rev: "HEAD" }, []],
    ["git reset --keep HEAD~2", { kind: "tree", rev: "HEAD~2" }, []],
    ["git checkout HEAD~1 -- a b", { kind: "tree", rev: "HEAD~1" }, ["a", "b"]],
    ["git checkout -- a", { kind: "index" }, ["a"]],
    ["git restore --source=v1 -W src", { kind: "tree", rev: "v1" }, ["src"]],
    ["git restore -s v1 src", { kind: "tree", rev: "v1" }, ["src"]],
    ["git read-tree -u --reset T", { kind: "tree", rev: "T" }, []],
    ["git read-tree -m -u HEAD T", { kind: "tree", rev: "T" }, []],
    ["git checkout-index -f -a", { kind: "index" }, []],
    ["git worktree add -b x ../wt v1", { kind: "tree", rev: "v1" }, []],
  ])("%s", (line, source, paths) => {
    const spec = specOf(line);
    expect(spec && "source" in spec ? { source: spec.source, paths: spec.paths } : spec).toEqual({
      source,
      paths,
    });
  });

  it.each([
    "git reset --soft HEAD~1",
    "git reset HEAD~1 -- a",
    "git stash",
    "git stash list",
    "git checkout main",
    "git checkout -b x HEAD~1",
    "git restore --staged a",
    "git read-tree HEAD",
    "git read-tree -u -n HEAD",
    "git checkout-index --temp a",
    "git worktree add --no-checkout ../wt",
  ])("%s rewrites no work-tree file", (line) => expect(specOf(line)).toBeUndefined());

  it.each([
    "git checkout HEAD -- *.toml",
    "git restore --pathspec-from-file=list",
    "git read-tree -m -u A B C",
    "git checkout-index --stdin",
  ])("%s is undecided", (line) => expect(specOf(line)).toHaveProperty("undecided"));

  it("checkout-index overwrites only with -f; restore removes unless --overlay; checkout only with --no-overlay", () => {
    const s = (l: string) => specOf(l) as { overwrite: boolean; deletes: boolean };
    expect(s("git checkout-index -a").overwrite).toBe(false);
    expect(s("git checkout-index -f -a").overwrite).toBe(true);
    expect(s("git restore -s v1 a").deletes).toBe(true);
    expect(s("git restore --overlay -s v1 a").deletes).toBe(false);
    expect(s("git checkout v1 -- a").deletes).toBe(false);
    expect(s("git checkout --no-overlay v1 -- a").deletes).toBe(true);
    // Without `--`, git takes a first operand that names no commit as one more path.
    expect(specOf("git checkout a b")).toHaveProperty("revMayBePath", true);
    expect(specOf("git checkout a -- b")).not.toHaveProperty("revMayBePath");
  });
});

describe("git's output as rev-files reads it (real git)", () => {
  const repo = tempDir("mcq-rewrite-spec-");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  fs.mkdirSync(path.join(repo, "d i r"));
  fs.writeFileSync(path.join(repo, "d i r", "tab\tname.txt"), "one\n");
  fs.writeFileSync(path.join(repo, "b.bin"), Buffer.from([0, 1, 2, 10, 3]));
  fs.symlinkSync("b.bin", path.join(repo, "link"));
  git("add", "-A");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x");

  it("ls-tree and ls-files records, names with spaces and tabs", () => {
    const names = git("ls-tree", "-r", "--name-only", "-z", "HEAD").split("\0").filter(Boolean);
    const tree = parseEntries(git("ls-tree", "-r", "-z", "HEAD"), "ls-tree");
    expect(tree.map((e) => e.path)).toEqual(names);
    expect(tree.find((e) => e.path === "link")?.mode).toBe("120000");
    expect(parseEntries(git("ls-files", "-s", "-z"), "ls-files")).toEqual(tree);
  });

  it("the blob hash is git hash-object's, for text, binary and a link's target", () => {
    for (const e of parseEntries(git("ls-tree", "-r", "-z", "HEAD"), "ls-tree")) {
      const file = path.join(repo, e.path);
      const bytes = e.mode === "120000" ? Buffer.from(fs.readlinkSync(file)) : fs.readFileSync(file);
      expect(blobSha(bytes, "sha1")).toBe(e.sha);
    }
  });

  it("diff-tree records and cat-file --batch bodies", () => {
    fs.writeFileSync(path.join(repo, "new.txt"), "new\n");
    fs.rmSync(path.join(repo, "b.bin"));
    git("add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "y");
    const { entries, deleted } = parseRawDiff(
      git("diff-tree", "-r", "-z", "--raw", "--no-renames", "HEAD^", "HEAD"),
    );
    expect(entries.map((e) => e.path)).toEqual(["new.txt"]);
    expect(deleted).toEqual(["b.bin"]);
    const sha = entries[0]?.sha as string;
    const out = execFileSync("git", ["cat-file", "--batch"], { cwd: repo, input: `${sha}\n${sha}\n` });
    expect(parseBatch(out).get(sha)?.toString()).toBe("new\n");
  });
});
