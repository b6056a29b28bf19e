/**
 * Issue 10.9: `.mcp-cache/` is a folder in the project, so whoever writes the project can plant links in it.
 * A dangling `.gitignore` link made the server create a file outside the root; a snapshot folder linked
 * outside was followed and its tampered mode 4755 applied; a journal linked to an outside file was read into
 * the audit. Nothing under `.mcp-cache/` is followed through a link, and a restore never adds setuid, setgid
 * or sticky bits the file did not have.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { attacker, filesUnder, modeOf } from "./helpers/race.js";

const RUN = "20260101T000000Z-0badc0de";

function layout() {
  const outer = tempDir("mcq-cache-tamper-");
  const proj = path.join(outer, "proj");
  const outside = path.join(outer, "outside");
  fs.mkdirSync(path.join(proj, "pkg"), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
  fs.writeFileSync(path.join(proj, "pkg", "a.py"), "x   =  1\n", { mode: 0o644 });
  return { outer, proj, outside, cache: path.join(proj, ".mcp-cache") };
}

function serve(proj: string): Promise<Connected> {
  return connectStdio({
    args: ["--allowed-paths", proj, "--rate-limit", "false"],
    cwd: proj,
    env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
  });
}

/** autoformat pkg/a.py (embedded ruff) and return its run id. */
async function formatOnce(s: Connected): Promise<string> {
  const r = await s.call("autoformat", { path: "pkg/a.py" });
  expect(r.success, JSON.stringify(r)).toBe(true);
  return (r.transaction as { run_id: string }).run_id;
}

describe("links planted in .mcp-cache are never followed", () => {
  it("a dangling .mcp-cache/.gitignore link creates nothing outside the root", async () => {
    const { proj, outside, cache } = layout();
    fs.mkdirSync(cache, { mode: 0o700 });
    await attacker(["plant", path.join(outside, "created-by-server"), path.join(cache, ".gitignore")]);
    const s = await serve(proj);
    try {
      await formatOnce(s);
    } finally {
      await s.close();
    }
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it("a snapshot folder linked outside is not followed, and its tampered setuid mode is not applied", async () => {
    const { proj, outside, cache } = layout();
    const s = await serve(proj);
    try {
      const run = await formatOnce(s);
      // Move the committed snapshot outside, make its manifest ask for mode 4755, link it back in.
      const snap = path.join(cache, "snapshots", run);
      const moved = path.join(outside, run);
      fs.cpSync(snap, moved, { recursive: true });
      fs.rmSync(snap, { recursive: true });
      const manifestFile = path.join(moved, "manifest.json");
      const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as {
        files: { before: { mode: number } }[];
      };
      for (const f of manifest.files) f.before.mode = 0o4755;
      fs.writeFileSync(manifestFile, JSON.stringify(manifest));
      await attacker(["plant", moved, snap]);
      const r = await s.call("rollback", { path: "." });
      // The linked snapshot is not read: nothing is restored, and a rollback that restores nothing is no
      // success (issue 30).
      expect(r, JSON.stringify(r)).toMatchObject({ success: false, error_type: "tool_error" });
      expect(r.error).toMatch(/^nothing was restored of .*: 1 file\(s\) have no snapshot to restore from$/);
      expect(r.restored).toEqual([]);
      expect(r.missing).toEqual([{ run_id: run, file: "pkg/a.py" }]);
    } finally {
      await s.close();
    }
    expect(modeOf(path.join(proj, "pkg", "a.py"))).toBe(0o644);
    expect(fs.readFileSync(path.join(proj, "pkg", "a.py"), "utf8")).toBe("x = 1\n");
  });

  it("a manifest tampered in place to mode 4755 restores the bytes without the setuid bit", async () => {
    const { proj, cache } = layout();
    const s = await serve(proj);
    try {
      const run = await formatOnce(s);
      const manifestFile = path.join(cache, "snapshots", run, "manifest.json");
      const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as {
        files: { before: { mode: number } }[];
      };
      for (const f of manifest.files) f.before.mode = 0o6755 | 0o1000;
      fs.writeFileSync(manifestFile, JSON.stringify(manifest));
      const r = await s.call("rollback", { path: "." });
      expect(r.success, JSON.stringify(r)).toBe(true);
    } finally {
      await s.close();
    }
    expect(fs.readFileSync(path.join(proj, "pkg", "a.py"), "utf8")).toBe("x   =  1\n");
    expect(modeOf(path.join(proj, "pkg", "a.py")) & 0o7000).toBe(0);
  });

  it("a journal linked to an outside file is not read into the audit", async () => {
    const { proj, outside, cache } = layout();
    for (const d of ["", "journal", "snapshots", "locks"]) fs.mkdirSync(path.join(cache, d), { mode: 0o700 });
    fs.writeFileSync(
      path.join(outside, "secret.json"),
      JSON.stringify({
        run_id: RUN,
        tool: "SECRET-TOOL-FROM-OUTSIDE",
        pid: 0,
        started: "",
        phase: "committing",
        snapshot: false,
        files: ["SECRET-FILE-FROM-OUTSIDE"],
      }),
    );
    await attacker(["plant", path.join(outside, "secret.json"), path.join(cache, "journal", `${RUN}.json`)]);
    const s = await serve(proj);
    let log: Record<string, unknown>;
    try {
      await formatOnce(s);
      log = await s.call("get_audit_log", { path: ".", limit: 100 });
    } finally {
      await s.close();
    }
    expect(log.success).toBe(true);
    expect(JSON.stringify(log)).not.toContain("SECRET");
    expect(fs.readFileSync(path.join(cache, "audit.jsonl"), "utf8")).not.toContain("SECRET");
    expect(filesUnder(outside).size).toBe(1);
  });
});
