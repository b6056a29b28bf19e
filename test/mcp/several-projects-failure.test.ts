/**
 * A path holding several projects where one fails by hand (QA: viper's nested module `remote/` whose go.mod
 * needs `go mod tidy`; ripgrep's `fuzz/` workspace; an unpatched ripgrep whose rust-version the toolchain is
 * below): lint, type_check and run_tests report the others' results with the failing project's error and
 * output beside them (lint threw every result away; type_check and run_tests dropped the output the error
 * pointed at; go's message lost `go mod tidy`), and a call where every project failed is a failure naming
 * each (run_tests said nothing_checked with success: true).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { PATH_WITH_TOOLS } from "../helpers/check.js";
import { missing, tempDir } from "../helpers/tools.js";

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

/** A command by hand in `cwd`: its exit code and stderr. */
function byHand(program: string, args: string[], cwd: string) {
  const r = spawnSync(program, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, PATH: PATH_WITH_TOOLS },
  });
  return { status: r.status, stderr: r.stderr.trim(), stdout: r.stdout };
}

interface Entry {
  path: string;
  error?: string;
  error_type?: string;
  output?: string;
  passed?: boolean;
  issue_count?: number;
}

describe.skipIf(missing("go"))("a Go module with a nested module go cannot load", () => {
  let root: string;
  let remote: string;
  let s: Connected;
  beforeAll(async () => {
    root = tempDir("mcq-go-broken-nested-");
    remote = path.join(root, "remote");
    // The root: one go vet finding. remote: requires the root (replaced by ../), whose go version is above
    // its own, so go wants its go.mod updated (go: updates to go.mod needed ... go mod tidy), offline.
    write(path.join(root, "go.mod"), "module example.com/root\n\ngo 1.22\n");
    write(
      path.join(root, "root.go"),
      'package root\n\nimport "fmt"\n\nfunc Hello(n int) string { return fmt.Sprintf("%s", n) }\n',
    );
    write(
      path.join(remote, "go.mod"),
      "module example.com/root/remote\n\ngo 1.21\n\nrequire example.com/root v0.0.0\n\nreplace example.com/root => ../\n",
    );
    write(
      path.join(remote, "remote.go"),
      'package remote\n\nimport "example.com/root"\n\nvar X = root.Hello(1)\n',
    );
    s = await connectStdio({ args: ["--allowed-paths", root], cwd: root, env: { PATH: PATH_WITH_TOOLS } });
  });
  afterAll(async () => s?.close());

  it("lint keeps the root's findings and lists remote's failure with go's whole complaint and its output", async () => {
    const vet = byHand("go", ["vet", "./..."], remote);
    expect(vet.status).toBe(1);
    expect(vet.stderr).toMatch(/updates to go\.mod needed; to update it:\n\s+go mod tidy/);
    // By hand at the root: the one printf finding.
    expect(byHand("go", ["vet", "./..."], root).stderr).toMatch(/root\.go:5:\d+: fmt\.Sprintf format %s/);
    for (const args of [{ path: root }, { path: root, linter: "govet" }]) {
      const r = await s.call("lint", args);
      expect(r, JSON.stringify(r)).toMatchObject({ success: true, passed: false, issue_count: 1 });
      expect((r.issues as string[])[0]).toMatch(/^root\.go:5:\d+: printf fmt\.Sprintf format %s/);
      expect(r.summary_text).toMatch(/; 1 project failed: remote$/);
      const failed = (r.linters as Entry[]).find((l) => l.path === "remote");
      expect(failed).toMatchObject({ passed: false, issue_count: 0, error_type: "tool_error" });
      // The message keeps what follows go's `to update it:`, and `output` is what go printed.
      expect(failed?.error).toContain("updates to go.mod needed; to update it: go mod tidy");
      expect(failed?.output).toBe(vet.stderr);
      expect(r.notes as string[]).toContain(`govet failed at remote (tool_error): ${failed?.error}`);
    }
  });

  it("type_check and run_tests give the failing module's output, which their 'see output' points at", async () => {
    const build = byHand("go", ["build", "./..."], remote);
    expect(build.status).toBe(1);
    const tc = await s.call("type_check", { path: root });
    expect(tc).toMatchObject({ success: true, passed: false });
    const checker = (tc.checkers as Entry[]).find((c) => c.path === "remote");
    // The message quotes go's complaint, the rest of it in the output.
    expect(checker?.error).toBe(
      "go build failed (exit 1) without a compiler error: go: updates to go.mod needed; to update it: go mod tidy",
    );
    expect(checker?.output).toBe(build.stderr);
    expect(tc.summary_text).toMatch(/; 1 project failed: remote$/);
    const rt = await s.call("run_tests", { path: root });
    expect(rt).toMatchObject({ success: true, passed: false });
    const project = (rt.projects as Entry[]).find((p) => p.path === "remote");
    expect(project).toMatchObject({ error_type: "tool_error", returncode: 1 });
    expect(project?.error).toMatch(/: go: updates to go\.mod needed; to update it: go mod tidy$/);
    expect(project?.output).toBe(byHand("go", ["test", "./..."], remote).stderr);
    expect(rt.summary_text).toMatch(/; 1 project failed: remote$/);
  });
});

describe.skipIf(missing("cargo"))("crates whose rust-version the toolchain is below", () => {
  let root: string;
  let s: Connected;
  beforeAll(async () => {
    root = tempDir("mcq-rust-too-new-");
    // One minor version above the installed rustc: cargo refuses every crate before building anything.
    const minor = Number(/rustc 1\.(\d+)/.exec(byHand("rustc", ["--version"], root).stdout)?.[1]);
    for (const name of ["a", "b"]) {
      write(
        path.join(root, name, "Cargo.toml"),
        `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\nrust-version = "1.${minor + 1}"\n`,
      );
      write(path.join(root, name, "src", "lib.rs"), "#[test]\nfn t() {}\n");
    }
    s = await connectStdio({ args: ["--allowed-paths", root], cwd: root, env: { PATH: PATH_WITH_TOOLS } });
  });
  afterAll(async () => s?.close());

  it("run_tests, lint, type_check where every project failed: a failure naming each one's error", async () => {
    const hand = byHand("cargo", ["test"], path.join(root, "a"));
    expect(hand.status).toBe(101);
    expect(hand.stderr).toMatch(/is not supported by the following packages?:\n\s+a@0\.1\.0 requires rustc/);
    const r = await s.call("run_tests", { path: root });
    expect(r, JSON.stringify(r)).toMatchObject({ success: false, error_type: "tool_error" });
    expect(r).not.toHaveProperty("nothing_checked");
    for (const name of ["a", "b"]) {
      // The package cargo names (the substance after `the following packages:`) is in the message.
      expect(r.error).toMatch(
        new RegExp(`${name}: cargo test could not build the tests: .*: ${name}@0\\.1\\.0 requires rustc`),
      );
      const project = (r.projects as Entry[]).find((p) => p.path.endsWith(name));
      expect(project?.output).toMatch(new RegExp(`${name}@0\\.1\\.0 requires rustc`));
    }
    const lint = await s.call("lint", { path: root });
    expect(lint).toMatchObject({ success: false, error_type: "tool_error" });
    expect((lint.linters as Entry[]).map((l) => l.output)).toEqual([
      expect.stringMatching(/a@0\.1\.0 requires rustc/),
      expect.stringMatching(/b@0\.1\.0 requires rustc/),
    ]);
    const tc = await s.call("type_check", { path: root });
    expect(tc).toMatchObject({ success: false, error_type: "tool_error" });
    expect(tc.error).toMatch(
      /^every project failed: .*a: cargo check failed \(exit 101\) without a diagnostic: error: rustc .* is not supported by the following packages?: a@0\.1\.0 requires rustc .*; .*b: cargo check failed/,
    );
    expect((lint.linters as Entry[])[0]?.error).toMatch(
      /^cargo clippy failed \(exit 101\): error: rustc .* is not supported by the following packages?: a@0\.1\.0 requires rustc/,
    );
    expect((tc.checkers as Entry[]).every((c) => /requires rustc/.test(c.output ?? ""))).toBe(true);
  });
});
