/**
 * findExecutable (src/exec/which.ts, over the `which` package): the given folders first, then PATH; a
 * name with a `/` checked as given; empty PATH entries never read as the working directory; a folder
 * whose name holds the PATH delimiter searched whole.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findExecutable } from "../../src/exec/which.js";
import { tempDir } from "../helpers/tools.js";

function script(dir: string, name: string, mode = 0o755): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, "#!/bin/sh\nexit 0\n", { mode });
  fs.chmodSync(file, mode);
  return file;
}

describe("findExecutable", () => {
  it("searches the given folders before PATH, in order, and skips what is not an executable file", () => {
    const base = tempDir("mcq-which-");
    const first = script(path.join(base, "a"), "tool");
    const second = script(path.join(base, "b"), "tool");
    script(path.join(base, "plain"), "tool", 0o644);
    fs.mkdirSync(path.join(base, "dir", "tool"), { recursive: true });
    const onPath = [path.join(base, "plain"), path.join(base, "dir"), path.join(base, "b")].join(
      path.delimiter,
    );
    expect(findExecutable("tool", [], onPath)).toBe(second);
    expect(findExecutable("tool", [path.join(base, "a")], onPath)).toBe(first);
    expect(findExecutable("tool", [path.join(base, "plain")], "")).toBeUndefined();
    expect(findExecutable("absent", [path.join(base, "a")], onPath)).toBeUndefined();
  });

  it("checks a name with a slash as given, and returns it as given", () => {
    const base = tempDir("mcq-which-slash-");
    const file = script(base, "tool");
    const unnormalized = `${base}//tool`;
    expect(findExecutable(unnormalized, [], "")).toBe(unnormalized);
    expect(findExecutable(file, [], "")).toBe(file);
    expect(findExecutable(path.join(base, "absent"), [], "")).toBeUndefined();
  });

  it("never reads an empty PATH entry as the working directory", () => {
    const base = tempDir("mcq-which-cwd-");
    script(base, "here-only");
    const cwd = process.cwd();
    process.chdir(base);
    try {
      expect(findExecutable("here-only", [], "")).toBeUndefined();
      expect(findExecutable("here-only", [], `${path.delimiter}${path.delimiter}`)).toBeUndefined();
      expect(findExecutable("here-only", [""], "/nonexistent")).toBeUndefined();
    } finally {
      process.chdir(cwd);
    }
  });

  it("searches a given folder whose name holds the PATH delimiter", () => {
    const base = tempDir("mcq-which-delim-");
    const odd = path.join(base, `x${path.delimiter}y`);
    const file = script(odd, "tool");
    expect(findExecutable("tool", [odd], "")).toBe(file);
  });
});
