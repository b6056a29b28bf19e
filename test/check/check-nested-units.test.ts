/**
 * A project with a project of its own language below it that its tools leave alone: a crate holding a crate
 * that is no member of a workspace (rust-lang/log's test_max_level_features), a Go module holding a module
 * (go-chi/chi's _examples). check plans each as a unit and calls its tools at each unit's root; the outer
 * unit's calls ran the inner unit's tools again (each call at a path holding several projects places its
 * tools at each of them), so the inner crate was linted and type-checked twice and its findings reported
 * twice. Now each unit's findings are reported once, as its tools run by hand in its folder find them.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { cargoMessagePlaces } from "../helpers/cargo.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECK_FIXTURES, parseJson, PATH_WITH_TOOLS, runCheck, type CheckJson } from "../helpers/check.js";
import { copyFixture, missing, tempDir } from "../helpers/tools.js";

const skip = ["go", "cargo"].some((t) => missing(t));

/** A tool run by hand in a folder, its build in a scratch target dir. */
function byHand(program: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync(program, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, PATH: PATH_WITH_TOOLS, GOTOOLCHAIN: "local", ...env },
  });
}

/** `file:line rule` of cargo's JSON messages (files relative to `base`), sorted. */
function cargoFindings(stdout: string, crate: string, base: string): string[] {
  return cargoMessagePlaces(stdout)
    .map((m) => `${path.relative(base, path.resolve(crate, m.file))}:${m.line} ${m.code}`)
    .sort();
}

/** `file:line` of go vet's findings (relative to `base`), sorted. */
function vetFindings(stderr: string, module: string, base: string): string[] {
  return [...stderr.matchAll(/^(\S+\.go):(\d+):\d+: /gm)]
    .map((m) => `${path.relative(base, path.resolve(module, m[1] as string))}:${m[2]}`)
    .sort();
}

describe.skipIf(skip)("check on a crate and a Go module with one of their own below them", () => {
  let dir: string;
  let json: CheckJson;
  const target = tempDir("mcq-nested-target-");
  beforeAll(async () => {
    dir = copyFixture(path.join(CHECK_FIXTURES, "nested"));
    json = parseJson(await runCheck([".", "--json", "--result-cache", "false"], { cwd: dir }));
  }, 240_000);
  afterAll(() => {
    for (const d of [dir, target]) fs.rmSync(d, { recursive: true, force: true });
  });

  /** The unit a finding's file is in: the deepest target of its check's that holds it. */
  const unitOf = (f: CheckJson["findings"][number]) =>
    json.checks
      .filter((c) => c.id === f.check && path.resolve(dir, f.file).startsWith(`${c.target}/`))
      .map((c) => path.relative(dir, c.target))
      .sort((a, b) => b.length - a.length)[0];

  /** One unit's findings of a check, `file:line rule`, sorted. */
  const ofCheck = (id: string, unit: string) =>
    json.findings
      .filter((f) => f.check === id && unitOf(f) === unit)
      .map((f) => `${f.file}:${f.line} ${f.rule_id}`)
      .sort();

  it("plans and runs each unit's checks at its own root", () => {
    expect(json.checks.map((c) => `${c.id} ${path.relative(dir, c.target)}`).sort()).toEqual(
      [
        "gofmt go",
        "govet go",
        "go go",
        "gofmt go/inner",
        "govet go/inner",
        "go go/inner",
        "rustfmt rust",
        "clippy rust",
        "cargo rust",
        "rustfmt rust/inner",
        "clippy rust/inner",
        "cargo rust/inner",
      ].sort(),
    );
  });

  it("reports each finding once: no finding twice from one tool", () => {
    const keys = json.findings.map((f) => `${f.check} ${f.file}:${f.line} ${f.rule_id}`);
    expect(keys.length).toBeGreaterThan(0);
    expect(new Set(keys).size).toBe(keys.length);
    // Each check's count is its own unit's findings, none of the unit's below it.
    for (const c of json.checks)
      expect(c.finding_count, `${c.id} ${c.target}`).toBe(ofCheck(c.id, path.relative(dir, c.target)).length);
  });

  it("Rust: clippy and cargo check as run by hand in each crate", () => {
    const outer = path.join(dir, "rust");
    const inner = path.join(outer, "inner");
    const run = (sub: string, crate: string) =>
      cargoFindings(
        byHand("cargo", [sub, "--message-format=json", "--quiet"], crate, {
          CARGO_TARGET_DIR: path.join(target, path.basename(crate)),
        }).stdout,
        crate,
        dir,
      );
    const clippyOuter = run("clippy", outer);
    const clippyInner = run("clippy", inner);
    const checkInner = run("check", inner);
    expect(clippyOuter).toEqual(["rust/src/lib.rs:2 clippy::ptr_arg", "rust/src/lib.rs:3 clippy::len_zero"]);
    expect(ofCheck("clippy", "rust")).toEqual(clippyOuter);
    expect(ofCheck("clippy", "rust/inner")).toEqual(clippyInner);
    expect(ofCheck("cargo", "rust/inner")).toEqual(checkInner);
    expect(ofCheck("cargo", "rust")).toEqual(run("check", outer));
    expect(json.findings.filter((f) => f.check === "clippy")).toHaveLength(
      clippyOuter.length + clippyInner.length,
    );
    expect(json.findings.filter((f) => f.check === "cargo")).toHaveLength(checkInner.length);
  });

  it("Go: go vet as run by hand in each module", () => {
    const outer = path.join(dir, "go");
    const inner = path.join(outer, "inner");
    const vet = (module: string) => vetFindings(byHand("go", ["vet", "./..."], module).stderr, module, dir);
    const own = json.findings
      .filter((f) => f.check === "govet")
      .map((f) => `${f.file}:${f.line}`)
      .sort();
    expect(vet(outer)).toEqual(["go/outer.go:7"]);
    expect(vet(inner)).toEqual(["go/inner/main.go:6"]);
    expect(own).toEqual([...vet(outer), ...vet(inner)].sort());
  });
});
