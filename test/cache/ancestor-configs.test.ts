/**
 * Configs in the folders ABOVE a project, which the tools look up there: two sibling crates (app depends on
 * lib by path) with no Cargo.toml above them, in one git work tree. rustfmt reads a `rustfmt.toml` from the
 * crate up, clippy a `clippy.toml`, cargo every `.cargo/config.toml` up. A whole-program key held only the
 * crate's own files, so after such a file was added a warm `check` (and the MCP format_check) still gave
 * the old verdict. Each case: warm twice, add the file at the top, and the verdict must be the tool's own.
 * clippy also needed its CLIPPY_CONF_DIR to name the folder of that config (clippy-conf.ts): cargo does not
 * run clippy again for a config that appears where none was read, so a miss alone still got old findings.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJson, PATH_WITH_TOOLS, runCheck } from "../helpers/check.js";
import { connectStdio } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const pkg = (name: string) => `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n`;

/** rs1/{app,lib}, a git work tree; lib's f has 3 arguments and, with `unused`, an unused variable. */
function crates(unused = false): string {
  const root = tempDir("mcq-ancestor-rs-");
  spawnSync("git", ["init", "-q"], { cwd: root });
  write(path.join(root, "app/Cargo.toml"), `${pkg("app")}\n[dependencies]\nlib = { path = "../lib" }\n`);
  write(path.join(root, "app/src/main.rs"), 'fn main() {\n    println!("{}", lib::f(1, 2, 3));\n}\n');
  write(path.join(root, "lib/Cargo.toml"), pkg("lib"));
  write(
    path.join(root, "lib/src/lib.rs"),
    "pub fn f(a: i32, b: i32, c: i32) -> i32 {\n    a + b + c\n}\n" +
      (unused ? "\npub fn g() {\n    let unused = 1;\n}\n" : ""),
  );
  // The lock files first: a run that writes one changes the inputs, which would hide a stale key.
  for (const c of ["app", "lib"])
    expect(spawnSync("cargo", ["generate-lockfile", "--offline"], { cwd: path.join(root, c) }).status).toBe(
      0,
    );
  return root;
}

const ENV = (xdg: string) => ({
  XDG_CACHE_HOME: xdg,
  // The suite runs without the cache (vitest.config.ts); this is its test.
  MCP_CODE_QUALITY_RESULT_CACHE: "true",
});

/**
 * `check . --only <tool>`: each crate's status, and lib's findings as `level rule`, each once (clippy runs
 * each target: the lib and its tests report the same warning), sorted.
 */
async function checkOf(root: string, tool: string, xdg: string) {
  const json = parseJson(await runCheck([".", "--json", "--only", tool], { cwd: root, env: ENV(xdg) }));
  return {
    status: Object.fromEntries(json.checks.map((c) => [path.relative(root, c.target), c.status])),
    lib: [
      ...new Set(
        json.findings
          .filter((f) => f.check === tool && f.file === "lib/src/lib.rs")
          .map((f) => `${f.level} ${f.rule_id}`),
      ),
    ].sort(),
  };
}

/** `cargo fmt --check` in a crate: passed or findings. */
function fmtByHand(crate: string): string {
  return spawnSync("cargo", ["fmt", "--check"], { cwd: crate }).status === 0 ? "passed" : "findings";
}

/** `cargo clippy` in lib, in a target folder of its own: its messages on lib as `level rule`, sorted. */
function clippyByHand(root: string): string[] {
  const r = spawnSync("cargo", ["clippy", "--offline", "--quiet", "--message-format=json"], {
    cwd: path.join(root, "lib"),
    env: { ...process.env, PATH: PATH_WITH_TOOLS, CARGO_TARGET_DIR: tempDir("mcq-ancestor-target-") },
    encoding: "utf8",
  });
  return r.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { reason: string; message?: { level: string; code?: { code: string } } })
    .filter((m) => m.reason === "compiler-message" && m.message?.code)
    .map((m) => `${m.message?.level} ${m.message?.code?.code}`)
    .sort();
}

describe.skipIf(missing("cargo"))("a config in a folder above the crates", () => {
  it("rustfmt.toml: check and format_check say what cargo fmt --check says", async () => {
    const root = crates();
    const xdg = tempDir("mcq-xdg-");
    const server = await connectStdio({
      args: ["--allowed-paths", root, "--rate-limit", "false", "--result-cache", "true"],
      env: { PATH: PATH_WITH_TOOLS, ...ENV(xdg) },
    });
    try {
      const lib = path.join(root, "lib");
      for (let i = 0; i < 2; i++) {
        expect((await checkOf(root, "rustfmt", xdg)).status).toEqual({ app: "passed", lib: "passed" });
        expect(await server.call("format_check", { path: lib })).toMatchObject({ formatted: true });
      }
      expect(await server.call("format_check", { path: lib })).toMatchObject({
        cached: expect.stringMatching(/^(\d+) of \1 files$/),
      });
      write(path.join(root, "rustfmt.toml"), "hard_tabs = true\n");
      const hand = { app: fmtByHand(path.join(root, "app")), lib: fmtByHand(lib) };
      expect(hand).toEqual({ app: "findings", lib: "findings" });
      expect((await checkOf(root, "rustfmt", xdg)).status).toEqual(hand);
      expect(await server.call("format_check", { path: lib })).toMatchObject({ formatted: false });
    } finally {
      await server.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);

  it("clippy.toml: check's clippy findings on lib are cargo clippy's", async () => {
    const root = crates();
    const xdg = tempDir("mcq-xdg-");
    try {
      for (let i = 0; i < 2; i++) expect((await checkOf(root, "clippy", xdg)).lib).toEqual([]);
      write(path.join(root, "clippy.toml"), "too-many-arguments-threshold = 2\n");
      const hand = clippyByHand(root);
      expect(hand).toEqual(["warning clippy::too_many_arguments"]);
      expect((await checkOf(root, "clippy", xdg)).lib).toEqual(hand);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);

  it(".cargo/config.toml: check's clippy findings on lib are cargo clippy's", async () => {
    const root = crates(true);
    const xdg = tempDir("mcq-xdg-");
    try {
      for (let i = 0; i < 2; i++)
        expect((await checkOf(root, "clippy", xdg)).lib).toEqual(["warning unused_variables"]);
      write(path.join(root, ".cargo/config.toml"), '[build]\nrustflags = ["-D", "unused-variables"]\n');
      const hand = clippyByHand(root);
      expect(hand).toEqual(["error unused_variables"]);
      expect((await checkOf(root, "clippy", xdg)).lib).toEqual(hand);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);
});
