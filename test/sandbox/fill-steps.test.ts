/** Which fill step a run of project code gets before it starts (sandbox/fill.ts), on real project folders. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import {
  fillDone,
  fillOnce,
  fillStepFor,
  pathToolchain,
  type FillStep,
} from "../../src/exec/sandbox/fill.js";
import type { SandboxProfile } from "../../src/exec/sandbox/profile.js";
import { tempDir } from "../helpers/tools.js";

const profile = (readOnlyCaches?: string[]): SandboxProfile => ({
  system: [],
  readOnly: [],
  readWrite: [],
  home: "/home/u",
  network: true,
  hidden: [],
  cwd: "/",
  ...(readOnlyCaches ? { readOnlyCaches } : {}),
});

function crate(files: Record<string, string> = {}): string {
  const dir = tempDir("mcq-fill-");
  fs.writeFileSync(path.join(dir, "Cargo.toml"), '[package]\nname = "c"\nversion = "0.1.0"\n');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** A step to run (undefined for none, and for one already done). */
const asStep = (s: FillStep | "done" | undefined): FillStep | undefined => (s === "done" ? undefined : s);

describe("fillStepFor", () => {
  const CARGO = "/home/u/.cargo/bin/cargo";
  const registry = profile(["/home/u/.cargo/registry"]);

  it("cargo clippy gets cargo fetch, --locked as it, with the toolchain's rustc and cargo's token provider", () => {
    const dir = crate({ ".cargo/config.toml": '[registries.my-corp]\nindex = "sparse+https://x/"\n' });
    const read = { kind: "read" as const, roots: [dir] };
    const step = asStep(
      fillStepFor(CARGO, ["clippy", "--locked", "--message-format=json"], dir, read, registry),
    );
    expect(step?.args).toEqual(["fetch", "--locked"]);
    expect(step?.env).toMatchObject({
      RUSTC: "rustc",
      RUSTC_WRAPPER: "",
      RUSTC_WORKSPACE_WRAPPER: "",
      CARGO_REGISTRY_GLOBAL_CREDENTIAL_PROVIDERS: "cargo:token",
      CARGO_REGISTRIES_MY_CORP_CREDENTIAL_PROVIDER: "cargo:token",
    });
    expect(step?.declaredEnv).toContain("CARGO_REGISTRY_TOKEN");
    // It runs no project code, with the project read-only.
    expect(step?.request).toMatchObject({ kind: "read", roots: [dir], fill: true });
    // A test run's fill may write the Cargo.lock a crate without one needs, with the facts' network.
    const tests = asStep(
      fillStepFor(CARGO, ["test"], dir, { kind: "tests", roots: [dir], network: false }, registry),
    );
    expect(tests?.request).toMatchObject({ kind: "write", writableRoots: [dir], fill: true });
    expect(tests?.request.network).toBeUndefined();
    // Once done, not again while the manifests are the same; an edit of Cargo.toml asks for it again.
    fillDone(step!);
    expect(fillStepFor(CARGO, ["clippy", "--locked", "--message-format=json"], dir, read, registry)).toBe(
      "done",
    );
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(dir, "Cargo.toml"), later, later);
    expect(
      fillStepFor(CARGO, ["clippy", "--locked", "--message-format=json"], dir, read, registry),
    ).toBeDefined();
  });

  it("cargo check and cargo clippy of a crate share one fetch, remembered by a fresh process until a cache changes", async () => {
    const dir = crate({ "Cargo.lock": "version = 3\n" });
    const home = tempDir("mcq-fill-home-");
    const caches = [path.join(home, "registry"), path.join(home, "git")];
    fs.mkdirSync(path.join(caches[0]!, "src", "index.crates.io-1"), { recursive: true });
    const read = { kind: "read" as const, roots: [dir] };
    const xdg = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = tempDir("mcq-fill-xdg-");
    try {
      const step = asStep(fillStepFor(CARGO, ["clippy", "--locked"], dir, read, profile(caches)));
      expect(step?.args).toEqual(["fetch", "--locked"]);
      expect(step?.persist).toEqual(caches);
      fillDone(step!);
      expect(fillStepFor(CARGO, ["check", "--locked"], dir, read, profile(caches))).toBe("done");
      // A fresh process (the module loaded anew): remembered on disk.
      vi.resetModules();
      const fresh = await import("../../src/exec/sandbox/fill.js");
      expect(fresh.fillStepFor(CARGO, ["check", "--locked"], dir, read, profile(caches))).toBe("done");
      // A crate unpacked or removed since (its index folder changed): fetched again.
      fs.mkdirSync(path.join(caches[0]!, "src", "index.crates.io-1", "dep-1.0.0"));
      vi.resetModules();
      const after = await import("../../src/exec/sandbox/fill.js");
      expect(
        asStep(after.fillStepFor(CARGO, ["check", "--locked"], dir, read, profile(caches))),
      ).toBeDefined();
      // A crate without a Cargo.lock: its run uses the lock its fetch resolved, so each command fetches.
      const lockless = crate();
      const write = { kind: "write" as const, roots: [lockless], writableRoots: [lockless] };
      const first = asStep(after.fillStepFor(CARGO, ["clippy"], lockless, write, profile(caches)));
      expect(first?.persist).toBeUndefined();
      after.fillDone(first!);
      expect(asStep(after.fillStepFor(CARGO, ["check"], lockless, write, profile(caches)))).toBeDefined();
    } finally {
      if (xdg === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = xdg;
    }
  });

  it("cargo check and clippy of one crate need one fetch: the same step, waited for while it runs", async () => {
    const dir = crate();
    const read = { kind: "read" as const, roots: [dir] };
    const check = asStep(
      fillStepFor(CARGO, ["check", "--locked", "--message-format=json"], dir, read, registry),
    );
    const clippy = asStep(
      fillStepFor(CARGO, ["clippy", "--locked", "--message-format=json"], dir, read, registry),
    );
    expect(check?.args).toEqual(["fetch", "--locked"]);
    expect(clippy?.key).toBe(check?.key);
    // Without --locked it is another fetch; another crate's is its own.
    expect(asStep(fillStepFor(CARGO, ["check"], dir, read, registry))?.key).not.toBe(check?.key);
    const other = crate();
    expect(
      asStep(fillStepFor(CARGO, ["check", "--locked"], other, { kind: "read", roots: [other] }, registry))
        ?.key,
    ).not.toBe(check?.key);
    // Both runs ask at once: one fetch runs, the other waits for it; a run with another environment runs its own.
    let fetches = 0;
    const fetch = () => {
      fetches++;
      return new Promise<number>((resolve) => setTimeout(() => resolve(0), 20));
    };
    const env = { CARGO_TARGET_DIR: "/tmp/t" };
    const first = fillOnce(check!, env, fetch);
    const second = fillOnce(clippy!, { ...env }, fetch);
    const third = fillOnce(clippy!, { CARGO_TARGET_DIR: "/tmp/u" }, fetch);
    expect([first.shared, second.shared, third.shared]).toEqual([false, true, false]);
    expect(await Promise.all([first.result, second.result, third.result])).toEqual([0, 0, 0]);
    expect(fetches).toBe(2);
    // Done for one is done for the other.
    fillDone(check!);
    expect(fillStepFor(CARGO, ["clippy", "--locked", "--message-format=json"], dir, read, registry)).toBe(
      "done",
    );
  });

  it("none for what builds nothing, for a run with writable caches, or a project toolchain given by path", () => {
    const dir = crate();
    const read = { kind: "read" as const, roots: [dir] };
    expect(fillStepFor(CARGO, ["fmt", "--check"], dir, read, registry)).toBeUndefined();
    expect(fillStepFor(CARGO, ["clippy"], dir, read, profile())).toBeUndefined();
    expect(fillStepFor(CARGO, ["clippy"], dir, { ...read, fill: true }, registry)).toBeUndefined();
    const own = crate({ "rust-toolchain.toml": '[toolchain]\npath = "./toolchain"\n' });
    expect(pathToolchain(path.join(own, "src"))).toBe(true);
    expect(fillStepFor(CARGO, ["clippy"], own, { kind: "read", roots: [own] }, registry)).toBeUndefined();
    const channel = crate({ "rust-toolchain.toml": '[toolchain]\nchannel = "stable"\n' });
    expect(pathToolchain(channel)).toBe(false);
  });

  it("go test, where no nested sandbox can be made, compiles without running: -exec true, -count=1", () => {
    const dir = tempDir("mcq-fill-go-");
    fs.writeFileSync(path.join(dir, "go.mod"), "module m\n\ngo 1.22\n");
    const step = asStep(
      fillStepFor(
        "/usr/local/go/bin/go",
        ["test", "-json", "./..."],
        dir,
        { kind: "tests", roots: [dir], network: true },
        profile(["/home/u/.cache/go-build"]),
      ),
    );
    expect(step?.args).toEqual([
      "test",
      expect.stringMatching(/^-exec=\/.*true$/),
      "-count=1",
      "-json",
      "./...",
    ]);
    expect(step?.request).toMatchObject({ kind: "read", fill: true });
    // go vet runs no project code: its caches are writable and it needs none.
    expect(
      fillStepFor("/usr/local/go/bin/go", ["vet", "./..."], dir, { kind: "read", roots: [dir] }, profile()),
    ).toBeUndefined();
  });
});
