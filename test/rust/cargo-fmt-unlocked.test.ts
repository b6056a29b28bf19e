/**
 * cargo fmt resolves nothing (`cargo metadata --no-deps --offline`, then rustfmt), so it never writes a
 * Cargo.lock and runs without the cargo workspace lock (src/adapters/rust/cargo-run.ts): beside a build of
 * the same crate (check starts cargo fmt, clippy and check of a crate at once), not after it. A crate without
 * a Cargo.lock is still left without one, and cargo check still takes the lock.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withWorkspaceLock } from "../../src/adapters/rust/workspace-lock.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";

describe.skipIf(missing("cargo"))("cargo fmt beside a cargo run holding the workspace lock", () => {
  let crate: string;
  let s: Connected;
  beforeAll(async () => {
    crate = copyFixture(path.join(FIXTURES, "check", "rust"));
    s = await connectStdio({ args: ["--allowed-paths", crate, "--timeout", "60"], cwd: crate });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(crate, { recursive: true, force: true });
  });

  it("format_check answers while another run holds the lock; type_check waits for it", async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = () => {};
    const holding = new Promise<void>((resolve) => (held = resolve));
    // Another server's cargo run on the crate, as the lock file shows it to this one.
    const holder = withWorkspaceLock(crate, 60_000, () => {
      held();
      return released;
    });
    await holding;
    let checked = false;
    const typeCheck = s.call("type_check", { path: ".", checker: "cargo" }).then((r) => {
      checked = true;
      return r;
    });
    const format = await s.call("format_check", { path: ".", language: "rust" });
    expect(format).toMatchObject({
      success: true,
      formatted: false,
      command: "cargo fmt --check -- --color never",
      unformatted_files: ["src/lib.rs"],
    });
    // The build waited for the lock: it has not answered while the other run holds it.
    expect(checked).toBe(false);
    release();
    await holder;
    expect(await typeCheck).toMatchObject({ success: true, passed: true });
    expect(fs.existsSync(path.join(crate, "Cargo.lock"))).toBe(false);
  }, 120_000);
});
