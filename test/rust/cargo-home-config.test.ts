/**
 * cargo reads `$CARGO_HOME/config.toml` (`[build] rustflags`...), which the sandbox shows it read-only: a
 * change there changes clippy's answers, so it is part of the result-cache key. Before, a cached clippy
 * result outlived the edit (a stale hit).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { rustHomeSettings } from "../../src/adapters/whole-program.js";
import { connectStdio } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

describe("cargo's own config and the result cache", () => {
  it.skipIf(missing("cargo"))(
    "an edit of $CARGO_HOME/config.toml is a miss, and clippy's next answer follows it",
    async () => {
      const crate = tempDir("mcq-cargo-home-crate-");
      fs.mkdirSync(path.join(crate, "src"));
      fs.writeFileSync(
        path.join(crate, "Cargo.toml"),
        '[package]\nname = "homecfg"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
      );
      fs.writeFileSync(path.join(crate, "src", "lib.rs"), "pub fn answer() -> u32 {\n    42\n}\n");
      const cargoHome = tempDir("mcq-cargo-home-");
      const s = await connectStdio({
        args: ["--sandbox", "required", "--allowed-paths", crate, "--result-cache", "true"],
        cwd: crate,
        env: { CARGO_HOME: cargoHome, XDG_CACHE_HOME: tempDir("mcq-cargo-home-xdg-"), RUSTFLAGS: undefined },
      });
      const rules = (r: Record<string, unknown>) =>
        ((r.findings ?? []) as { rule_id?: string }[]).map((f) => f.rule_id);
      try {
        const before = await s.call("lint", { path: crate, linter: "clippy" });
        expect(rules(before), JSON.stringify(before).slice(0, 1500)).toEqual([]);
        const again = await s.call("lint", { path: crate, linter: "clippy" });
        expect(again.cached, JSON.stringify(again).slice(0, 600)).toMatch(/^(\d+) of \1 files$/);
        fs.writeFileSync(
          path.join(cargoHome, "config.toml"),
          '[build]\nrustflags = ["-W", "missing-docs"]\n',
        );
        const after = await s.call("lint", { path: crate, linter: "clippy" });
        expect(rules(after), JSON.stringify(after).slice(0, 1500)).toContain("missing_docs");
      } finally {
        await s.close();
      }
    },
  );
});

describe("rustHomeSettings", () => {
  it("reads cargo's config and rustup's settings (the default toolchain, folder overrides), null where absent", () => {
    const cargo = tempDir("mcq-cargo-home-");
    const rustup = tempDir("mcq-rustup-home-");
    const env = { CARGO_HOME: cargo, RUSTUP_HOME: rustup };
    expect(rustHomeSettings(env)).toEqual([null, null, null]);
    fs.writeFileSync(path.join(rustup, "settings.toml"), 'default_toolchain = "stable"\n\n[overrides]\n');
    const before = rustHomeSettings(env);
    fs.writeFileSync(
      path.join(rustup, "settings.toml"),
      'default_toolchain = "stable"\n\n[overrides]\n"/srv/p" = "nightly"\n',
    );
    expect(rustHomeSettings(env)).not.toEqual(before);
    fs.writeFileSync(path.join(cargo, "config"), "[build]\n");
    expect(rustHomeSettings(env)[1]).toBe("[build]\n");
  });
});
