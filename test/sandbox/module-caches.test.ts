/**
 * The shared module caches (issue 38): a read-only clippy lint runs the project's build.rs, and a `go test`
 * under run_tests runs the project's tests; with `$CARGO_HOME/registry` and GOMODCACHE read-write in their
 * sandboxes, one edited a crate's sources and the other a module's, and another project's clippy lint and
 * `go test` compiled and ran the edits. Now a run of project code sees them read-only, filled first by a step
 * that runs none (`cargo fetch`, `go test -exec=true`). Offline: a local cargo registry and a file GOPROXY.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";
import { probeSandbox } from "../../src/exec/sandbox/launch.js";

const INJECTED = "INJECTED-BY-ANOTHER-PROJECT";

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function treeHash(dir: string): string {
  const h = createHash("sha256");
  for (const f of (fs.readdirSync(dir, { recursive: true }) as string[]).sort()) {
    const p = path.join(dir, f);
    if (fs.statSync(p).isFile()) h.update(f).update(fs.readFileSync(p));
  }
  return h.digest("hex");
}

/** A local registry holding `mcqdep 0.1.0` (feature `extra`), and a CARGO_HOME whose crates-io is it. */
function localRegistry(root: string): { cargoHome: string } {
  const reg = path.join(root, "registry");
  const pkg = path.join(tempDir("mcq-cargo-pkg-"), "mcqdep-0.1.0");
  write(
    path.join(pkg, "Cargo.toml"),
    '[package]\nname = "mcqdep"\nversion = "0.1.0"\nedition = "2021"\n\n[features]\nextra = []\n',
  );
  write(path.join(pkg, "src", "lib.rs"), "pub fn answer() -> u32 {\n    42\n}\n");
  fs.mkdirSync(path.join(reg, "index", "mc", "qd"), { recursive: true });
  const crate = path.join(reg, "mcqdep-0.1.0.crate");
  execFileSync("tar", ["-C", path.dirname(pkg), "-czf", crate, "mcqdep-0.1.0"]);
  const cksum = createHash("sha256").update(fs.readFileSync(crate)).digest("hex");
  write(
    path.join(reg, "index", "mc", "qd", "mcqdep"),
    `${JSON.stringify({ name: "mcqdep", vers: "0.1.0", deps: [], cksum, features: { extra: [] }, yanked: false })}\n`,
  );
  const cargoHome = tempDir("mcq-cargo-home-");
  write(
    path.join(cargoHome, "config.toml"),
    `[source.crates-io]\nreplace-with = "local"\n\n[source.local]\nlocal-registry = "${reg}"\n`,
  );
  return { cargoHome };
}

function crate(dir: string, name: string, dependency: string, extra: Record<string, string> = {}): void {
  write(
    path.join(dir, "Cargo.toml"),
    `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nmcqdep = ${dependency}\n`,
  );
  write(path.join(dir, "src", "lib.rs"), "pub fn f() -> u32 {\n    mcqdep::answer()\n}\n");
  for (const [rel, text] of Object.entries(extra)) write(path.join(dir, rel), text);
}

/**
 * A build script that appends a compile_error! to mcqdep's unpacked sources in $CARGO_HOME/registry, then
 * fails, so that what it did shows in the lint's error.
 */
const INJECTING_BUILD_RS = `use std::{env, fs, path::Path};

fn main() {
    let home = env::var("CARGO_HOME").unwrap_or_default();
    let src = Path::new(&home).join("registry").join("src");
    let mut said = Vec::new();
    for index in fs::read_dir(&src).into_iter().flatten().flatten() {
        let lib = index.path().join("mcqdep-0.1.0").join("src").join("lib.rs");
        if !lib.exists() {
            continue;
        }
        let text = fs::read_to_string(&lib).unwrap_or_default();
        match fs::write(&lib, format!("{}compile_error!(\\"${INJECTED}\\");\\n", text)) {
            Ok(()) => said.push(format!("injected {}", lib.display())),
            Err(e) => said.push(format!("refused {}: {}", lib.display(), e)),
        }
    }
    panic!("INJECT {}", said.join("; "));
}
`;

describe.skipIf(missing("cargo"))("cargo's registry", () => {
  const root = tempDir("mcq-cargo-reg-");
  let cargoHome: string;
  let s: Connected;

  beforeAll(async () => {
    expect(probeSandbox()).toMatchObject({ available: true });
    ({ cargoHome } = localRegistry(root));
    crate(path.join(root, "attacker"), "attacker", '"0.1"', { "build.rs": INJECTING_BUILD_RS });
    crate(path.join(root, "victim"), "victim", '{ version = "0.1", features = ["extra"] }');
    for (const c of ["attacker", "victim"]) {
      const lock = spawnSync("cargo", ["generate-lockfile", "--offline"], {
        cwd: path.join(root, c),
        env: { ...process.env, CARGO_HOME: cargoHome },
        encoding: "utf8",
      });
      expect(lock.status, lock.stderr).toBe(0);
    }
    s = await connectStdio({
      cwd: root,
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", root],
      env: { CARGO_HOME: cargoHome, CARGO_NET_OFFLINE: "true" },
    });
  });
  afterAll(() => s?.close());

  it("a crate edited by one project's build.rs never builds in another project's clippy lint", async () => {
    const attack = await s.call("lint", { path: path.join(root, "attacker"), linter: "clippy" });
    // The crates were unpacked by the fill step; the build script found them and could not write.
    const src = path.join(cargoHome, "registry", "src");
    expect(fs.readdirSync(src)).toHaveLength(1);
    const unpacked = treeHash(src);
    const said = JSON.stringify(attack);
    // The build script ran, found the unpacked crate and could not write it (it fails to say so).
    expect(said, said.slice(0, 1500)).toMatch(/INJECT refused .*mcqdep-0\.1\.0.*Read-only file system/);
    expect(said).not.toContain("INJECT injected");
    const victim = await s.call("lint", { path: path.join(root, "victim"), linter: "clippy" });
    expect(victim, JSON.stringify(victim).slice(0, 1500)).toMatchObject({ success: true, passed: true });
    expect(JSON.stringify(victim)).not.toContain(INJECTED);
    expect(treeHash(src)).toBe(unpacked);
    const lib = fs.readFileSync(
      path.join(src, fs.readdirSync(src)[0] as string, "mcqdep-0.1.0", "src", "lib.rs"),
      "utf8",
    );
    expect(lib).not.toContain(INJECTED);
  });
});

/** A file GOPROXY holding example.com/mcqdep v0.1.0 (`Answer() == 42`). */
function fileProxy(dir: string): void {
  const at = path.join(dir, "example.com", "mcqdep", "@v");
  write(path.join(at, "list"), "v0.1.0\n");
  write(path.join(at, "v0.1.0.info"), '{"Version":"v0.1.0","Time":"2024-01-01T00:00:00Z"}\n');
  const mod = "module example.com/mcqdep\n\ngo 1.22\n";
  write(path.join(at, "v0.1.0.mod"), mod);
  const zip = path.join(at, "v0.1.0.zip");
  const made = spawnSync(
    "python3",
    [
      "-c",
      [
        "import sys, zipfile",
        "z = zipfile.ZipFile(sys.argv[1], 'w')",
        "p = 'example.com/mcqdep@v0.1.0/'",
        "z.writestr(p + 'go.mod', sys.argv[2])",
        "z.writestr(p + 'dep.go', 'package mcqdep\\n\\nfunc Answer() int { return 42 }\\n')",
        "z.close()",
      ].join("\n"),
      zip,
      mod,
    ],
    { encoding: "utf8" },
  );
  expect(made.status, made.stderr).toBe(0);
}

function goModule(dir: string, name: string, test: string): void {
  write(
    path.join(dir, "go.mod"),
    `module example.com/${name}\n\ngo 1.22\n\nrequire example.com/mcqdep v0.1.0\n`,
  );
  write(
    path.join(dir, `${name}.go`),
    `package ${name}\n\nimport "example.com/mcqdep"\n\nfunc F() int { return mcqdep.Answer() }\n`,
  );
  write(path.join(dir, `${name}_test.go`), test);
}

/** A test that makes the module's Answer() return 7 in GOMODCACHE, and says what happened. */
const EDITING_TEST = `package attacker

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEdit(t *testing.T) {
	dir := filepath.Join(os.Getenv("GOMODCACHE"), "example.com", "mcqdep@v0.1.0")
	file := filepath.Join(dir, "dep.go")
	_ = os.Chmod(dir, 0o755)
	_ = os.Chmod(file, 0o644)
	err := os.WriteFile(file, []byte("package mcqdep\\n\\nfunc Answer() int { return 7 }\\n"), 0o644)
	t.Logf("EDIT %v", err)
}
`;

const CHECKING_TEST = `package victim

import "testing"

func TestAnswer(t *testing.T) {
	if got := F(); got != 42 {
		t.Fatalf("Answer() = %d, want 42", got)
	}
}
`;

describe.skipIf(missing("go"))("Go's module cache", () => {
  const root = tempDir("mcq-gomod-");
  const proxy = tempDir("mcq-goproxy-");
  const modcache = tempDir("mcq-gomodcache-");
  let s: Connected;

  beforeAll(async () => {
    expect(probeSandbox()).toMatchObject({ available: true });
    fileProxy(proxy);
    goModule(path.join(root, "attacker"), "attacker", EDITING_TEST);
    goModule(path.join(root, "victim"), "victim", CHECKING_TEST);
    const env = {
      GOPROXY: `file://${proxy}`,
      GOSUMDB: "off",
      GOFLAGS: "-mod=mod",
      GOMODCACHE: modcache,
      GOTOOLCHAIN: "local",
    };
    // go.sum as a project has it (on the host, before the server starts); then a fresh module cache.
    for (const m of ["attacker", "victim"]) {
      const tidy = spawnSync("go", ["mod", "tidy"], {
        cwd: path.join(root, m),
        env: { ...process.env, ...env },
        encoding: "utf8",
      });
      expect(tidy.status, tidy.stderr).toBe(0);
    }
    spawnSync("go", ["clean", "-modcache"], { env: { ...process.env, ...env } });
    s = await connectStdio({
      cwd: root,
      // The proxy is read by the fill step: an allowed root, read-only.
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", `${root},${proxy}`],
      env: { ...env, GOFLAGS: "" },
    });
  });
  afterAll(() => s?.close());

  it("a module edited by one project's go test never compiles into another project's run_tests", async () => {
    const attack = await s.call("run_tests", { path: path.join(root, "attacker"), verbose: true });
    const said = JSON.stringify(attack);
    expect(said, said.slice(0, 2000)).toContain("EDIT ");
    expect(said).toContain("read-only file system");
    const victim = await s.call("run_tests", { path: path.join(root, "victim") });
    expect(victim, JSON.stringify(victim).slice(0, 2000)).toMatchObject({ success: true, passed: true });
    const dep = fs.readFileSync(path.join(modcache, "example.com", "mcqdep@v0.1.0", "dep.go"), "utf8");
    expect(dep).toContain("return 42");
  });
});
