import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRootOf } from "../../src/fix/cache-dir.js";
import { tempDir } from "../helpers/tools.js";

describe("project root of a target (whose .mcp-cache and lock a transaction uses)", () => {
  it("is the outermost folder with a project marker, never above the allowed root", () => {
    const allowed = tempDir("mcq-root-");
    const repo = path.join(allowed, "repo");
    const pkg = path.join(repo, "packages", "b");
    fs.mkdirSync(path.join(pkg, "src"), { recursive: true });
    fs.mkdirSync(path.join(repo, ".git"));
    fs.writeFileSync(path.join(pkg, "pyproject.toml"), "");
    fs.writeFileSync(path.join(pkg, "src", "x.py"), "");
    // A package of a repository shares the repository's lock.
    expect(projectRootOf(path.join(pkg, "src", "x.py"), allowed)).toBe(repo);
    expect(projectRootOf(pkg, allowed)).toBe(repo);
    // The allowed root bounds the search.
    expect(projectRootOf(path.join(pkg, "src"), pkg)).toBe(pkg);
    // Without any marker: the allowed root.
    const bare = path.join(allowed, "bare");
    fs.mkdirSync(bare);
    expect(projectRootOf(bare, allowed)).toBe(allowed);
  });
});
