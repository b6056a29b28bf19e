/**
 * The transaction state in `.mcp-cache/` (journals, snapshot manifests, the transaction audit) is a file in
 * the project, so anyone who can write the project can edit it. Recovery and rollback act on it; a tampered
 * name in it (`..`, an absolute path, a run id with slashes, a symlinked folder) must never make them read,
 * write or delete anything outside the project root.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureCacheDir, type CachePaths } from "../../src/fix/cache-dir.js";
import { recoverRoot } from "../../src/fix/recovery.js";
import { TxAudit } from "../../src/fix/tx-audit.js";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const RUN = "20260101T000000Z-0badc0de";
const EVIL = Buffer.from("written by a tampered manifest\n");
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** outer/proj is the project; outer/victim.txt and outer/victim.json must survive everything. */
async function layout(): Promise<{ outer: string; proj: string; paths: CachePaths }> {
  const outer = tempDir("mcq-tamper-");
  const proj = path.join(outer, "proj");
  fs.mkdirSync(path.join(proj, "pkg"), { recursive: true });
  fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
  fs.writeFileSync(path.join(proj, "pkg", "a.py"), "x = 1\n");
  fs.writeFileSync(path.join(outer, "victim.txt"), "keep me\n");
  fs.writeFileSync(path.join(outer, "victim.json"), "{}\n");
  return { outer, proj, paths: await ensureCacheDir(proj) };
}

/** A snapshot of run RUN holding EVIL, whose manifest lists `files` as entries. */
function plantSnapshot(paths: CachePaths, files: { path: string; before: unknown; after?: unknown }[]): void {
  const dir = path.join(paths.snapshots, RUN);
  fs.mkdirSync(path.join(dir, "objects"), { recursive: true });
  fs.writeFileSync(path.join(dir, "objects", sha(EVIL)), EVIL);
  const manifest = {
    version: 1,
    run_id: RUN,
    tool: "lint_fix",
    root: paths.root,
    created: new Date().toISOString(),
    committed: false,
    files,
  };
  fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest));
}

function plantJournal(paths: CachePaths, journal: Record<string, unknown>): void {
  const full = {
    run_id: RUN,
    tool: "lint_fix",
    pid: 0,
    started: "",
    phase: "applying",
    snapshot: true,
    files: [],
    ...journal,
  };
  fs.writeFileSync(path.join(paths.journal, `${RUN}.json`), JSON.stringify(full));
}

const evilState = { sha256: sha(EVIL), mode: 0o644, size: EVIL.length };
const absentState = { sha256: null, mode: 0, size: 0 };

describe("recovery of a tampered journal or manifest stays inside the project", () => {
  it("manifest entries with .. or an absolute path neither overwrite nor delete outside files", async () => {
    const { outer, paths } = await layout();
    plantSnapshot(paths, [
      { path: "../victim.txt", before: evilState },
      { path: "../victim.json", before: absentState },
      { path: path.join(outer, "victim.txt"), before: evilState },
      { path: "pkg/a.py", before: evilState },
    ]);
    plantJournal(paths, {});
    await recoverRoot(paths, new TxAudit(paths.audit, 1_000_000));
    expect(fs.readFileSync(path.join(outer, "victim.txt"), "utf8")).toBe("keep me\n");
    expect(fs.existsSync(path.join(outer, "victim.json"))).toBe(true);
    // The manifest as a whole is not trusted: not even its in-project entry is applied.
    expect(fs.readFileSync(path.join(paths.root, "pkg", "a.py"), "utf8")).toBe("x = 1\n");
  });

  it("a run id with .. in the journal does not delete a file outside", async () => {
    const { outer, paths } = await layout();
    plantJournal(paths, { run_id: "../../../victim", snapshot: false });
    await recoverRoot(paths, new TxAudit(paths.audit, 1_000_000));
    expect(fs.existsSync(path.join(outer, "victim.json"))).toBe(true);
    expect(fs.readdirSync(paths.journal)).toEqual([]);
  });

  it("a restore does not write through a directory symlinked out of the project", async () => {
    const { outer, paths } = await layout();
    const elsewhere = path.join(outer, "elsewhere");
    fs.mkdirSync(elsewhere);
    fs.symlinkSync(elsewhere, path.join(paths.root, "linked"));
    plantSnapshot(paths, [{ path: "linked/planted.py", before: evilState }]);
    plantJournal(paths, {});
    await recoverRoot(paths, new TxAudit(paths.audit, 1_000_000));
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});

describe("the rollback tool with a tampered audit or manifest stays inside the project", () => {
  it("restores nothing outside the root and reads no file outside it", async () => {
    const { outer, proj, paths } = await layout();
    const victim = fs.readFileSync(path.join(outer, "victim.txt"));
    const victimState = {
      sha256: sha(victim),
      mode: fs.statSync(path.join(outer, "victim.txt")).mode & 0o7777,
      size: victim.length,
    };
    plantSnapshot(paths, [{ path: "../victim.txt", before: evilState, after: victimState }]);
    const entry = {
      timestamp: new Date().toISOString(),
      run_id: RUN,
      tool: "lint_fix",
      root: proj,
      result: "commit",
      files_written: ["../victim.txt"],
      lock_wait_ms: 0,
      lock_hold_ms: 0,
    };
    // A second committed run whose id walks out of the snapshots folder, to a manifest planted outside.
    const outsideRun = path.join(outer, "outside-run");
    fs.mkdirSync(path.join(outsideRun, "objects"), { recursive: true });
    fs.writeFileSync(path.join(outsideRun, "objects", sha(EVIL)), EVIL);
    fs.writeFileSync(
      path.join(outsideRun, "manifest.json"),
      JSON.stringify({
        version: 1,
        run_id: "../../../outside-run",
        tool: "lint_fix",
        root: proj,
        created: "",
        committed: true,
        files: [
          {
            path: "pkg/a.py",
            before: evilState,
            after: { sha256: sha(Buffer.from("x = 1\n")), mode: 0o644, size: 6 },
          },
        ],
      }),
    );
    const walking = { ...entry, run_id: "../../../outside-run", files_written: ["pkg/a.py"] };
    fs.writeFileSync(paths.audit, `${JSON.stringify(entry)}\n${JSON.stringify(walking)}\n`);

    const s = await connectStdio({ args: ["--allowed-paths", proj, "--rate-limit", "false"], cwd: proj });
    try {
      const r = await s.call("rollback", { path: ".", count: 2, force: true });
      expect(fs.readFileSync(path.join(outer, "victim.txt"), "utf8")).toBe("keep me\n");
      expect(fs.readFileSync(path.join(proj, "pkg", "a.py"), "utf8")).toBe("x = 1\n");
      // Nothing restored: no success (issue 30), and nothing outside touched.
      expect(r.success).toBe(false);
      expect(r.error).toMatch(/^nothing was restored of /);
      expect(r.restored).toEqual([]);
      expect(r.forced).toEqual([]);
      // Nothing read from outside was copied into the rollback's own snapshot.
      const objects = fs
        .readdirSync(paths.snapshots)
        .flatMap((d) => fs.readdirSync(path.join(paths.snapshots, d, "objects"), { withFileTypes: true }))
        .map((o) => o.name);
      expect(objects).not.toContain(sha(victim));
    } finally {
      await s.close();
    }
  });
});

describe("a .mcp-cache that is a symlink out of the project", () => {
  it("is refused before anything is written through it", async () => {
    const outer = tempDir("mcq-cache-link-");
    const proj = path.join(outer, "proj");
    fs.mkdirSync(path.join(proj, "pkg"), { recursive: true });
    fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
    fs.writeFileSync(path.join(proj, "pkg", "a.py"), "x   =  1\n");
    const elsewhere = path.join(outer, "elsewhere");
    fs.mkdirSync(elsewhere);
    fs.symlinkSync(elsewhere, path.join(proj, ".mcp-cache"));
    const s = await connectStdio({
      args: ["--allowed-paths", proj, "--rate-limit", "false"],
      cwd: proj,
      env: { PATH: "/usr/bin:/bin", VIRTUAL_ENV: undefined },
    });
    try {
      const r = await s.call("autoformat", { path: "." });
      expect(r.success).toBe(false);
      expect(r.error_type).toBe("path_validation");
      expect(fs.readdirSync(elsewhere)).toEqual([]);
      expect(fs.readFileSync(path.join(proj, "pkg", "a.py"), "utf8")).toBe("x   =  1\n");
    } finally {
      await s.close();
    }
  });
});
