/**
 * The shell model reads a line of plain words (no quotes, expansions, globs, operators: shell/walk.ts
 * plainWords) without tree-sitter. Every line of the command corpus, and plain look-alikes of its lines,
 * get the same parsed commands and the same decision both ways.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "../../src/policy/bundle.js";
import { checkCommand } from "../../src/policy/checks.js";
import { compileBundle } from "../../src/policy/compile.js";
import { parseCommandLine } from "../../src/policy/shell.js";
import { plainWords } from "../../src/policy/shell/walk.js";
import { REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const CORPUS: string[] = fs
  .readFileSync(path.join(REPO_ROOT, "test", "policy", "corpus", "commands.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => (JSON.parse(l) as { line: string }).line);

/** Each line, and each of its `&&`/`;`/`|` parts with quotes dropped: more plain lines than the corpus has. */
const LINES = [
  ...new Set([
    ...CORPUS,
    ...CORPUS.flatMap((l) => l.split(/&&|\|\||[;|\n]/).map((p) => p.replace(/["']/g, ""))),
    "git push --force",
    "  git   push  origin  main  ",
    "cd sub",
    "cd /tmp",
    "cd",
    "export FOO=1",
    "FOO=1 git commit --no-verify",
    "time git push --force",
    "echo if then fi",
    "git commit -m done",
    "declare x=1",
    "unset HUSKY",
    "sh -c ls",
    "eval git push --force",
    "env HUSKY=0 git commit -m x",
    "git ci-no-verify -m x",
    "git -c core.hooksPath=/dev/null commit -m x",
    "rm -rf .husky",
    "sudo rm -rf /",
    "xargs git push --force",
    ":",
    "",
    "   ",
  ]),
];

let bundle: Bundle;
let project: string;
beforeAll(async () => {
  bundle = await compileBundle();
  // A repository with an alias, as the corpus test's (git's aliases are read from it).
  project = fs.realpathSync(tempDir("mcq-plain-"));
  execFileSync("git", ["init", "-q"], { cwd: project });
  execFileSync("git", ["config", "alias.ci-no-verify", "commit --no-verify"], { cwd: project });
  fs.mkdirSync(path.join(project, "sub"));
});

describe("plain words without the parser", () => {
  it("reads only plain lines, split at spaces", () => {
    expect(plainWords("  git  push --force ")).toEqual(["git", "push", "--force"]);
    for (const l of ["git push 'x'", "a=1 b", "ls *", "ls ~", "a;b", "a\tb", "a\\ b", "if x", "a # c", "$x"])
      expect(plainWords(l)).toBeUndefined();
  });

  it("gives every corpus line (and plain parts of them) the same commands and decision as the parser", async () => {
    let plain = 0;
    const site = { cwd: project, home: "/home/user" };
    for (const line of LINES) {
      if (plainWords(line)) plain++;
      expect(await parseCommandLine(line, site), line).toEqual(
        await parseCommandLine(line, { ...site, plain: false }),
      );
      const check = { cwd: project, projectRoot: project, home: "/home/user" };
      expect(await checkCommand(bundle, { command: line }, check), line).toEqual(
        await checkCommand(bundle, { command: line }, { ...check, plain: false }),
      );
    }
    expect(plain).toBeGreaterThan(50);
  });
});
