/**
 * A Go module holding other modules below it (go-chi/chi: `_examples/rest/go.mod`, `_examples/versions/go.mod`):
 * run_tests on its root runs each module's `go test ./...` at that module's root, once, as go test itself
 * does from each (it overflowed the stack: the root, a project holding projects, was split again and again).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

/** `go test -json ./...` in `dir`, as the count of tests that passed. */
function passedDirectly(dir: string): number {
  const r = spawnSync("go", ["test", "-count=1", "-json", "./..."], { cwd: dir, encoding: "utf8" });
  expect(r.status, `${r.stderr} ${r.error?.message ?? ""}`).toBe(0);
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { Action?: string; Test?: string })
    .filter((e) => e.Test && e.Action === "pass").length;
}

describe.skipIf(missing("go"))("run_tests on a Go module with modules below it", () => {
  let root: string;
  let s: Connected;
  beforeAll(async () => {
    root = tempDir("mcq-go-nested-");
    write(path.join(root, "go.mod"), "module example.com/router\n\ngo 1.21\n");
    write(path.join(root, "router.go"), "package router\n\nfunc Route(p string) string { return p }\n");
    write(
      path.join(root, "router_test.go"),
      'package router\n\nimport "testing"\n\nfunc TestRoute(t *testing.T) {\n\tif Route("/a") != "/a" {\n\t\tt.Fatal("route")\n\t}\n}\n\nfunc TestRouteEmpty(t *testing.T) {\n\tif Route("") != "" {\n\t\tt.Fatal("empty")\n\t}\n}\n',
    );
    for (const example of ["rest", "versions"]) {
      const dir = path.join(root, "_examples", example);
      write(path.join(dir, "go.mod"), `module example.com/${example}\n\ngo 1.21\n`);
      write(
        path.join(dir, "main.go"),
        `package main\n\nfunc name() string { return "${example}" }\n\nfunc main() {}\n`,
      );
      // As chi's examples: one module with a test, one with none.
      if (example === "rest")
        write(
          path.join(dir, "main_test.go"),
          `package main\n\nimport "testing"\n\nfunc TestName(t *testing.T) {\n\tif name() != "${example}" {\n\t\tt.Fatal(name())\n\t}\n}\n`,
        );
    }
    s = await connectStdio({ args: ["--allowed-paths", root], cwd: root });
  });
  afterAll(async () => s?.close());

  it("runs each module's tests once, at its own root; a module without tests is nothing checked, no failure", async () => {
    const r = await s.call("run_tests", { path: root });
    expect(r).toMatchObject({ success: true, passed: true, failure_count: 0 });
    const projects = r.projects as {
      path: string;
      runner: string;
      passed?: boolean;
      summary: { passed: number };
    }[];
    // The root is shown by its folder's name (display paths are relative to the allowed root's parent).
    const dirOf = (shown: string) => (shown.startsWith("_examples/") ? path.join(root, shown) : root);
    expect(projects.map((p) => dirOf(p.path)).sort()).toEqual(
      [root, path.join(root, "_examples", "rest"), path.join(root, "_examples", "versions")].sort(),
    );
    expect(projects.every((p) => p.runner === "go test")).toBe(true);
    // What go test counts from each module's root (it leaves `_` folders and other modules out of `./...`).
    for (const p of projects) expect(p.summary.passed, p.path).toBe(passedDirectly(dirOf(p.path)));
    const versions = projects.find((p) => p.path.endsWith("versions"));
    expect(versions).toMatchObject({ nothing_checked: true });
    expect(versions).not.toHaveProperty("passed");
    expect(projects.filter((p) => p.passed === true)).toHaveLength(2);
    expect((r.summary as { passed: number }).passed).toBe(3);
  });
});
