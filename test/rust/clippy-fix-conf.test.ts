/**
 * lint_fix with clippy reads the clippy.toml clippy's own run reads: the nearest one from the crate up (a
 * folder above the crate's workspace here, which the scratch copy does not hold). The fix path ran with
 * CLIPPY_CONF_DIR set to its copy of the crate, so clippy read no config there: what it said was left after
 * the fix was not what `cargo clippy` says (the threshold below went unread).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PATH_WITH_TOOLS } from "../helpers/check.js";
import { connectStdio } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** `cargo clippy` in `crate`, in a target folder of its own: its rules, sorted, each once. */
function clippyByHand(crate: string): string[] {
  const r = spawnSync("cargo", ["clippy", "--offline", "--quiet", "--message-format=json"], {
    cwd: crate,
    env: { ...process.env, PATH: PATH_WITH_TOOLS, CARGO_TARGET_DIR: tempDir("mcq-fixconf-target-") },
    encoding: "utf8",
  });
  const rules = r.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { reason: string; message?: { code?: { code: string } } })
    .filter((m) => m.reason === "compiler-message" && m.message?.code)
    .map((m) => m.message?.code?.code ?? "");
  return [...new Set(rules)].sort();
}

describe.skipIf(missing("cargo"))("clippy-fix and the clippy.toml above the crate", () => {
  it("what lint_fix leaves is what cargo clippy says, with the parent folder's clippy.toml", async () => {
    const root = tempDir("mcq-fixconf-");
    const crate = path.join(root, "lib");
    write(path.join(root, "clippy.toml"), "too-many-arguments-threshold = 2\n");
    write(path.join(crate, "Cargo.toml"), '[package]\nname = "lib"\nversion = "0.1.0"\nedition = "2021"\n');
    write(
      path.join(crate, "src/lib.rs"),
      "pub fn f(a: i32, b: i32, c: i32) -> i32 {\n    return a + b + c;\n}\n",
    );
    expect(spawnSync("cargo", ["generate-lockfile", "--offline"], { cwd: crate }).status).toBe(0);
    const server = await connectStdio({
      args: ["--allowed-paths", root, "--rate-limit", "false"],
      env: { PATH: PATH_WITH_TOOLS },
    });
    try {
      const lib = path.join(crate, "src/lib.rs");
      const r = await server.call("lint_fix", { path: crate, linter: "clippy" });
      expect(r).toMatchObject({ success: true, changed_files: [lib] });
      const fixed = fs.readFileSync(lib, "utf8");
      expect(fixed).not.toContain("return");
      // What is left, as clippy by hand says of the fixed crate (too_many_arguments, from the threshold).
      const hand = clippyByHand(crate);
      expect(hand).toEqual(["clippy::too_many_arguments"]);
      const left = (r.files as { messages?: { rule_id: string }[] }[]).flatMap((f) => f.messages ?? []);
      expect([...new Set(left.map((m) => m.rule_id))].sort()).toEqual(hand);
    } finally {
      await server.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);
});
