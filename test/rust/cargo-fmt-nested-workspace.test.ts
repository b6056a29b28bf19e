/**
 * A Cargo workspace whose root is also a package, with a member crate and a nested workspace of its own
 * (ripgrep's `fuzz/`). The result cache keyed cargo fmt's verdict by the project (the outermost folder with a
 * Cargo.toml), not by where cargo fmt ran: the root's verdict answered for `fuzz` (its files listed twice in
 * one call), and fuzz's for the root (a false "formatted"). Each call must say what `cargo fmt --check` by
 * hand in its folder says, cache on or off, in any call order.
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

/** The files `cargo fmt --check` by hand in `dir` would change, relative to `root`, sorted. */
function byHand(dir: string, root: string): string[] {
  const r = spawnSync("cargo", ["fmt", "--check", "--", "--color", "never"], { cwd: dir, encoding: "utf8" });
  expect(r.status === 0 || r.status === 1, r.stderr).toBe(true);
  const files = [...r.stdout.matchAll(/^Diff in (.+?):\d+:$/gm)].map((m) =>
    path.relative(root, path.resolve(dir, m[1] as string)),
  );
  return [...new Set(files)].sort();
}

describe.skipIf(missing("cargo"))("cargo fmt in a workspace holding a nested workspace", () => {
  let root: string;
  let cached: Connected;
  let fresh: Connected;
  beforeAll(async () => {
    root = tempDir("mcq-cargo-nested-ws-");
    write(
      path.join(root, "Cargo.toml"),
      '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[workspace]\nmembers = ["crates/lib"]\nexclude = ["fuzz"]\n',
    );
    // Misformatted: only the root package's file.
    write(path.join(root, "src", "main.rs"), "fn main() {}\n\nfn bad(  ) {  }\n");
    write(
      path.join(root, "crates", "lib", "Cargo.toml"),
      '[package]\nname = "lib"\nversion = "0.1.0"\nedition = "2021"\n',
    );
    write(path.join(root, "crates", "lib", "src", "lib.rs"), "pub fn one() -> u32 {\n    1\n}\n");
    write(
      path.join(root, "fuzz", "Cargo.toml"),
      '[package]\nname = "fuzz"\nversion = "0.0.1"\nedition = "2021"\n\n[workspace]\nmembers = ["."]\n',
    );
    write(path.join(root, "fuzz", "src", "main.rs"), "fn main() {}\n");
    const args = ["--allowed-paths", root, "--rate-limit", "false"];
    const cacheDir = ["--result-cache-dir", tempDir("mcq-cargo-nested-ws-cache-")];
    [cached, fresh] = await Promise.all([
      connectStdio({ args: [...args, "--result-cache", "true", ...cacheDir], cwd: root }),
      connectStdio({ args: [...args, "--result-cache", "false"], cwd: root }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([cached?.close(), fresh?.close()]);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("each folder's answer is cargo fmt's there, cache on or off, fuzz first or the root first", async () => {
    const fuzz = path.join(root, "fuzz");
    const lib = path.join(root, "crates", "lib");
    expect(byHand(root, root)).toEqual(["src/main.rs"]);
    expect(byHand(fuzz, root)).toEqual([]);
    expect(byHand(lib, root)).toEqual([]);
    // fuzz first (stored under the shared project), then the root: the false pass QA saw on ripgrep.
    const calls: [string, Record<string, unknown>, string[]][] = [
      ["fuzz", { path: fuzz }, []],
      ["root, language rust", { path: root, language: "rust" }, ["src/main.rs"]],
      ["fuzz again", { path: fuzz }, []],
      ["root", { path: root }, ["src/main.rs"]],
      ["member crate", { path: lib }, []],
      ["root, from the cache", { path: root, language: "rust" }, ["src/main.rs"]],
    ];
    for (const [label, args, expected] of calls)
      for (const [server, s] of [
        ["cached", cached],
        ["fresh", fresh],
      ] as const) {
        const r = await s.call("format_check", args);
        expect(r.success, `${label} (${server}): ${JSON.stringify(r)}`).toBe(true);
        // Each file once: the root's run and fuzz's are separate workspaces, neither lists the other's files.
        expect(r.unformatted_files, `${label} (${server})`).toEqual(expected);
        expect(r.unformatted_count, `${label} (${server})`).toBe(expected.length);
        expect(r.formatted, `${label} (${server})`).toBe(expected.length === 0);
      }
    // The last root call came whole from the cache: the cache was on, and it answered right.
    const last = await cached.call("format_check", { path: fuzz });
    expect(last.cached).toMatch(/^(\d+) of \1 files$/);
  }, 180_000);
});
