/**
 * A project without an ESLint config is linted with the bundled default config; it linted what the
 * project's .gitignore leaves out (sindresorhus/ky: its build output `distribution/`, 60 files and 30 of the
 * 140 findings), which git, ruff and Prettier all skip. The bundled config now follows the project's
 * .gitignore (converted by @eslint/compat): the files linted are those git does not ignore, and an edited
 * .gitignore is followed by the same warm worker. The bundled ESLint and the real git.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

/** Every file of the tree that git does not ignore, relative, sorted (git ls-files of a fresh repository). */
const notIgnored = (dir: string) =>
  execFileSync("git", ["ls-files", "--others", "--exclude-standard"], { cwd: dir, encoding: "utf8" })
    .split("\n")
    .filter((f) => f.endsWith(".js"))
    .sort();

describe("the bundled ESLint config and the project's .gitignore", () => {
  const dir = tempDir("mcq-eslint-gitignore-");
  const bad = "const unused = 1;\n";
  for (const f of ["src/a.js", "out/b.js", "gen.js", "src/gen.js", "logs/keep.js", "logs/drop.js"])
    write(path.join(dir, f), bad);
  write(path.join(dir, "package.json"), '{ "name": "p", "type": "module" }\n');
  // A folder anywhere, a root-anchored file, and a negation inside an ignored pattern's reach.
  write(path.join(dir, ".gitignore"), "# build output\nout/\n/gen.js\nlogs/*\n!logs/keep.js\n");
  execFileSync("git", ["init", "-q"], { cwd: dir });
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio({ args: ["--allowed-paths", dir] });
  });
  afterAll(() => s?.close());

  const linted = async () => {
    const r = await s.call("lint", { path: dir, linter: "eslint", format: "full" });
    expect(r.success, JSON.stringify(r)).toBe(true);
    return (r.issues as string[]).map((i) => i.split(":")[0] as string).sort();
  };

  it("lints the files git does not ignore, and no other", async () => {
    const expected = notIgnored(dir);
    expect(expected).toEqual(["logs/keep.js", "src/a.js", "src/gen.js"]);
    expect(await linted()).toEqual(expected);
  });

  it("follows an edited .gitignore in the same warm worker", async () => {
    write(path.join(dir, ".gitignore"), "/gen.js\n");
    const expected = notIgnored(dir);
    expect(expected).toEqual(["logs/drop.js", "logs/keep.js", "out/b.js", "src/a.js", "src/gen.js"]);
    expect(await linted()).toEqual(expected);
  });
});
