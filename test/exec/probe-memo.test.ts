/**
 * Probe answers remembered on disk (src/exec/probe-memo.ts): only for a native executable that is one file,
 * under its identity, never through a link; and through a real `check`: the ruff version a fresh process
 * reports comes from the memo while the same ruff file is there, and is asked again once the file changes.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { recallProbe, rememberableIdentity, rememberProbe } from "../../src/exec/probe-memo.js";
import { CHECK_FIXTURES, PATH_WITH_TOOLS } from "../helpers/check.js";
import { CLI } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const node = fs.realpathSync(process.execPath);

describe("rememberableIdentity", () => {
  it("names a native executable by its file, and not a script, a hard link or a folder", () => {
    const dir = tempDir("mcq-probe-id-");
    const copy = path.join(dir, "node");
    fs.copyFileSync(node, copy);
    const identity = rememberableIdentity(copy);
    expect(identity).toMatch(new RegExp(`^${copy}:`));
    // A link on PATH names the file it points to, under its own path.
    fs.symlinkSync(copy, path.join(dir, "node-link"));
    expect(rememberableIdentity(path.join(dir, "node-link"))).toMatch(/node-link:/);
    // Any change to the file is a new identity.
    fs.utimesSync(copy, new Date(), new Date(Date.now() - 60_000));
    expect(rememberableIdentity(copy)).not.toBe(identity);

    const script = path.join(dir, "tool");
    fs.writeFileSync(script, "#!/bin/sh\necho 1.0\n", { mode: 0o755 });
    expect(rememberableIdentity(script)).toBeUndefined();
    fs.linkSync(copy, path.join(dir, "proxy"));
    expect(rememberableIdentity(copy)).toBeUndefined();
    expect(rememberableIdentity(dir)).toBeUndefined();
    expect(rememberableIdentity(path.join(dir, "absent"))).toBeUndefined();
  });
});

describe("recallProbe / rememberProbe", () => {
  it("gives back what was remembered for the same key only, and never reads through a link", () => {
    const dir = path.join(tempDir("mcq-probe-memo-"), "probes");
    expect(recallProbe(["version", "a"], dir)).toBeUndefined();
    rememberProbe(["version", "a"], "ruff 1.2.3", dir);
    expect(recallProbe(["version", "a"], dir)).toBe("ruff 1.2.3");
    expect(recallProbe(["version", "b"], dir)).toBeUndefined();
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    // A link planted at the entry's name is not followed.
    const [entry] = fs.readdirSync(dir);
    const outside = path.join(tempDir("mcq-probe-outside-"), "x.json");
    fs.writeFileSync(outside, JSON.stringify({ key: "version\0a", answer: "forged" }));
    fs.rmSync(path.join(dir, entry!));
    fs.symlinkSync(outside, path.join(dir, entry!));
    expect(recallProbe(["version", "a"], dir)).toBeUndefined();
  });
});

describe("a fresh check's ruff version", () => {
  it("is remembered under the ruff file's identity, and asked again once the file changes", () => {
    if (missing("ruff", [TOOLS_VENV_BIN])) return;
    const bin = tempDir("mcq-probe-bin-");
    const ruff = path.join(bin, "ruff");
    fs.copyFileSync(path.join(TOOLS_VENV_BIN, "ruff"), ruff);
    fs.chmodSync(ruff, 0o755);
    const cache = tempDir("mcq-probe-xdg-");
    const out = tempDir("mcq-probe-out-");
    const memo = path.join(cache, "mcp-code-quality", "probes");
    const check = () => {
      const r = spawnSync(
        process.execPath,
        [CLI, "check", ".", "--only", "ruff", "--json", "--audit-log", path.join(out, "audit.log")],
        {
          cwd: path.join(CHECK_FIXTURES, "python"),
          env: { ...process.env, PATH: [bin, PATH_WITH_TOOLS].join(":"), XDG_CACHE_HOME: cache },
          encoding: "utf8",
        },
      );
      expect(r.status, r.stderr).toBe(1);
      return fs
        .readdirSync(memo)
        .map(
          (f) => JSON.parse(fs.readFileSync(path.join(memo, f), "utf8")) as { key: string; answer: string },
        )
        .filter((e) => e.key.startsWith(`version\0${ruff}:`));
    };
    const first = check();
    expect(first).toHaveLength(1);
    expect(first[0]!.answer).toMatch(/^ruff \d+\.\d+\.\d+/);
    // A second process finds it and adds nothing.
    expect(check()).toEqual(first);
    // The same ruff rewritten (an upgrade, a reinstall) is another file: asked again, remembered apart.
    fs.copyFileSync(path.join(TOOLS_VENV_BIN, "ruff"), `${ruff}.new`);
    fs.chmodSync(`${ruff}.new`, 0o755);
    fs.renameSync(`${ruff}.new`, ruff);
    const after = check();
    expect(after).toHaveLength(2);
    expect(after.map((e) => e.answer)).toEqual([first[0]!.answer, first[0]!.answer]);
  });
});
