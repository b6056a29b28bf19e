/** Path allowlist: every escape route is refused, and no tool process is ever started for a refused path. */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Allowlist, isWithin } from "../../src/paths/allowlist.js";
import { ToolError } from "../../src/errors.js";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { reportChannel } from "../helpers/channel.js";

function layout() {
  const base = tempDir("mcq-allow-");
  const app = path.join(base, "app");
  const evil = path.join(base, "app-evil");
  const outside = path.join(base, "outside");
  for (const d of [app, evil, outside, path.join(app, "src")]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(app, "src", "ok.py"), "x = 1\n");
  fs.writeFileSync(path.join(evil, "secret.py"), "import os\n");
  fs.writeFileSync(path.join(outside, "secret.py"), "import os\n");
  fs.writeFileSync(path.join(app, "ruff.toml"), "line-length = 90\n");
  fs.writeFileSync(path.join(outside, "ruff.toml"), "line-length = 90\n");
  fs.symlinkSync(outside, path.join(app, "link-out"));
  fs.symlinkSync(path.join(app, "src"), path.join(outside, "link-in"));
  return { base, app, evil, outside };
}

function errorOf(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ToolError) return e;
    throw e;
  }
  throw new Error("expected a ToolError");
}

describe("Allowlist.resolve", () => {
  const l = layout();
  const allow = new Allowlist([l.app, path.join(l.base, "does-not-exist")], l.app);

  it("drops roots that do not exist and keeps canonical existing ones", () => {
    expect(allow.roots.effective).toEqual([l.app]);
    expect(allow.roots.dropped).toEqual([
      { path: path.join(l.base, "does-not-exist"), reason: "does not exist" },
    ]);
  });

  it("accepts a relative path inside a root and returns it canonical", () => {
    expect(allow.resolve("src/../src/ok.py")).toBe(path.join(l.app, "src", "ok.py"));
  });

  it.each([
    ["a .. escape", "../outside/secret.py"],
    ["a deep .. escape", "src/../../outside"],
    ["a same-prefix sibling", "../app-evil/secret.py"],
    ["an absolute path outside", "/etc/passwd"],
    ["a symlink out of the root", "link-out/secret.py"],
  ])("refuses %s", (_name, input) => {
    const e = errorOf(() => allow.resolve(input));
    expect(e.errorType).toBe("path_validation");
    expect(e.message).toMatch(/outside the allowed paths/);
    expect(e.extra.allowed_paths).toEqual([l.app]);
  });

  it("accepts a symlink from outside that points into a root (its canonical path is inside)", () => {
    expect(allow.resolve(path.join(l.outside, "link-in", "ok.py"))).toBe(path.join(l.app, "src", "ok.py"));
  });

  it.each([
    ["empty", ""],
    ["whitespace", "   "],
    ["NUL", "src\u0000/ok.py"],
    ["newline", "src/ok.py\n"],
    ["tab", "src\tok.py"],
    ["4097 bytes", "a".repeat(4097)],
  ])("rejects malformed text (%s) as invalid_input", (_name, input) => {
    expect(errorOf(() => allow.resolve(input)).errorType).toBe("invalid_input");
  });

  it("treats a path beginning with - as a path, never an option", () => {
    const e = errorOf(() => allow.resolve("--config=/etc/passwd"));
    expect(e.errorType).toBe("path_validation");
    expect(e.message).toMatch(/does not exist/);
  });

  it("checks file versus directory", () => {
    expect(errorOf(() => allow.resolve("src", { kind: "file" })).message).toMatch(/must be a file/);
    expect(errorOf(() => allow.resolve("src/ok.py", { kind: "directory" })).message).toMatch(
      /must be a directory/,
    );
  });

  it("compares by whole path components", () => {
    expect(isWithin("/srv/app", "/srv/app")).toBe(true);
    expect(isWithin("/srv/app", "/srv/app/x")).toBe(true);
    expect(isWithin("/srv/app", "/srv/app-evil")).toBe(false);
    expect(isWithin("/srv/app", "/srv")).toBe(false);
    expect(isWithin("/srv/app", "/srv/app/..foo")).toBe(true);
  });
});

describe("refused paths never reach a tool (through MCP)", () => {
  const l = layout();
  // A stand-in flake8 first on PATH that records being started: it detects spawns, it is not a tool mock. It
  // records into a FIFO in the root (a sandboxed read-only lint may write nothing that lasts; a FIFO may be
  // written on a read-only mount).
  const bin = tempDir("mcq-spawn-detector-");
  const spawned = reportChannel("", l.app).fifo(".spawned");
  const marker = spawned.path;
  fs.writeFileSync(path.join(bin, "flake8"), `#!/bin/sh\necho "$@" >> ${marker}\n`, { mode: 0o755 });
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio({
      args: ["--allowed-paths", `${l.app},${path.join(l.base, "missing-root")}`],
      cwd: l.app,
      env: { PATH: `${bin}:${process.env.PATH}` },
    });
  });
  afterAll(() => s.close());

  it.each([
    [{ path: "../outside" }, "path_validation"],
    [{ path: "../app-evil" }, "path_validation"],
    [{ path: "link-out" }, "path_validation"],
    [{ path: "" }, "invalid_input"],
    [{ path: "src\nx" }, "invalid_input"],
    [{ path: "a".repeat(4097) }, "invalid_input"],
    [{ path: "-rf" }, "path_validation"],
    [{ path: "--config=/etc/passwd" }, "path_validation"],
    [{ path: "src", config: "../outside/ruff.toml" }, "path_validation"],
    [{ path: "src", config: "src" }, "path_validation"],
  ])("lint %j → %s, nothing spawned", async (args, errorType) => {
    const r = await s.call("lint", { linter: "flake8", ...args });
    expect(r.success).toBe(false);
    expect(r.error_type).toBe(errorType);
    if (errorType === "path_validation") expect(r.allowed_paths).toEqual([l.app]);
    expect(spawned.read()).toBe("");
  });

  it("a valid path does start the tool (the detector works)", async () => {
    const r = await s.call("lint", { linter: "flake8", path: "src" });
    expect(r.success).toBe(true);
    expect(spawned.read()).toBe(`--isolated -- ${path.join(l.app, "src")}\n`);
  });

  it("get_status reports the dropped root", async () => {
    const r = await s.call("get_status");
    expect(r.allowed_paths).toEqual({
      configured: [l.app, path.join(l.base, "missing-root")],
      effective: [l.app],
      dropped: [{ path: path.join(l.base, "missing-root"), reason: "does not exist" }],
    });
  });
});
