import fs from "node:fs";
import path from "node:path";
import lockfile from "proper-lockfile";
import { describe, expect, it } from "vitest";
import { cachePaths } from "../../src/fix/cache-dir.js";
import { lockOptions, lockTarget } from "../../src/fix/lock.js";
import { copyFixture, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";
import {
  FIX_PROJECT,
  fixProject,
  noMypy,
  noRuff,
  readTree,
  serverFor,
  txEntries,
  TYPECOMMENT_PROJECT,
} from "./helpers.js";

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe("transactions", () => {
  it.skipIf(noRuff())(
    "keeps .mcp-cache owner-only and gitignored, with a snapshot of what was written",
    async () => {
      const dir = fixProject();
      const s = await serverFor(dir);
      const r = await s.call("lint_fix", { path: "pkg", files: ["m1.py"] });
      await s.close();
      const tx = r.transaction as {
        run_id: string;
        result: string;
        files_written: string[];
        snapshot: { taken: boolean };
      };
      expect(tx).toMatchObject({ result: "commit", files_written: ["pkg/m1.py"], snapshot: { taken: true } });
      const paths = cachePaths(dir);
      expect(mode(paths.dir)).toBe(0o700);
      for (const d of [paths.locks, paths.snapshots, paths.journal]) expect(mode(d)).toBe(0o700);
      expect(fs.readFileSync(path.join(paths.dir, ".gitignore"), "utf8")).toMatch(/^\*$/m);
      expect(mode(paths.audit)).toBe(0o600);
      expect(fs.readdirSync(paths.journal)).toEqual([]);
      const manifest = JSON.parse(
        fs.readFileSync(path.join(paths.snapshots, tx.run_id, "manifest.json"), "utf8"),
      ) as { files: { path: string; before: { sha256: string } }[] };
      expect(manifest.files.map((f) => f.path)).toEqual(["pkg/m1.py"]);
      const object = path.join(paths.snapshots, tx.run_id, "objects", manifest.files[0]!.before.sha256);
      expect(fs.readFileSync(object)).toEqual(fs.readFileSync(path.join(FIX_PROJECT, "pkg", "m1.py")));
      expect(mode(object)).toBe(0o600);
    },
  );

  it.skipIf(noRuff() || noMypy())(
    "fix_all whose fix breaks the type check restores every file byte for byte, mode too",
    async () => {
      const dir = copyFixture(TYPECOMMENT_PROJECT);
      fs.chmodSync(path.join(dir, "pkg", "size.py"), 0o640);
      const before = readTree(dir);
      const s = await serverFor(dir);
      // ty (the default) does not read type comments; mypy sees the name the fix removed.
      const r = await s.call("fix_all", { path: ".", checker: "mypy" });
      const entries = await txEntries(s, dir);
      await s.close();
      expect(r.success).toBe(true);
      expect(r.rolled_back).toBe(true);
      expect(r.passed).toBe(false);
      expect(r.rollback_reason).toMatch(
        /^type check \(mypy\) failed: 1 new error\(s\), first: pkg\/size\.py:\d+:\d+: name-defined Name "List" is not defined/,
      );
      expect((r.restored_files as string[]).sort()).toEqual(["pkg/other.py", "pkg/size.py"]);
      expect((r.type_check as { passed: boolean }).passed).toBe(false);
      expect(readTree(dir)).toEqual(before);
      expect(mode(path.join(dir, "pkg", "size.py"))).toBe(0o640);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ tool: "fix_all", result: "rollback", reason: r.rollback_reason });
      expect(fs.readdirSync(cachePaths(dir).snapshots)).toEqual([]);
    },
  );

  it.skipIf(noMypy())(
    "when ty (the default checker) is not installed, fix_all verifies with mypy and says so",
    async () => {
      const dir = copyFixture(TYPECOMMENT_PROJECT);
      // Debian's mypy without the tools virtualenv: no ty, and the embedded ruff fixes.
      const s = await serverFor(dir, { path: "/usr/bin:/bin" });
      const r = await s.call("fix_all", { path: "." });
      await s.close();
      expect(r.notes).toEqual(
        expect.arrayContaining(["ty is not installed: the fix was verified with mypy"]),
      );
      expect(r.type_check).toMatchObject({ checker: "mypy" });
    },
  );

  it.skipIf(noRuff())(
    "a verification that cannot run restores the written files and is audited as error",
    async () => {
      const dir = copyFixture(TYPECOMMENT_PROJECT);
      const before = readTree(dir);
      // A PATH with ruff but without mypy: the type check step fails to start after ruff wrote.
      const bin = tempDir("mcq-bin-");
      fs.symlinkSync(path.join(TOOLS_VENV_BIN, "ruff"), path.join(bin, "ruff"));
      const s = await serverFor(dir, { path: bin });
      const r = await s.call("fix_all", { path: ".", checker: "mypy" });
      const entries = await txEntries(s, dir);
      await s.close();
      expect(r).toMatchObject({ success: false, error_type: "tool_not_found" });
      expect(readTree(dir)).toEqual(before);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ tool: "fix_all", result: "error" });
      expect((entries[0]?.restored_files as string[]).sort()).toEqual(["pkg/other.py", "pkg/size.py"]);
    },
  );

  it.skipIf(noRuff() || noMypy())(
    "fix_all with auto_rollback off keeps the fix and says the check failed",
    async () => {
      const dir = copyFixture(TYPECOMMENT_PROJECT);
      const s = await serverFor(dir);
      const r = await s.call("fix_all", { path: ".", checker: "mypy", auto_rollback: false });
      const skipped = await s.call("fix_all", { path: ".", skip_typecheck: true });
      await s.close();
      expect(r.rolled_back).toBe(false);
      expect((r.transaction as { result: string }).result).toBe("commit");
      expect(r.notes).toEqual(
        expect.arrayContaining(["type check (mypy) failed and the fix was kept: autoRollback is off"]),
      );
      expect(fs.readFileSync(path.join(dir, "pkg", "size.py"), "utf8")).not.toContain("import List");
      expect(skipped.type_check).toBeUndefined();
      expect(skipped.notes).toEqual(
        expect.arrayContaining([expect.stringContaining("type check skipped (skip_typecheck)")]),
      );
    },
  );

  it.skipIf(noRuff())(
    "over --snapshot-max-bytes: no snapshot, commit-no-snapshot, and the note says so",
    async () => {
      const dir = fixProject();
      const s = await serverFor(dir, { args: ["--snapshot-max-bytes", "100"] });
      const r = await s.call("lint_fix", { path: "." });
      const entries = await txEntries(s, dir);
      const rb = await s.call("rollback", { path: "." });
      await s.close();
      const tx = r.transaction as { result: string; snapshot: { taken: boolean; bytes: number } };
      expect(tx.result).toBe("commit-no-snapshot");
      expect(tx.snapshot.taken).toBe(false);
      expect(tx.snapshot.bytes).toBeGreaterThan(100);
      expect(r.notes).toEqual(
        expect.arrayContaining([expect.stringMatching(/^no snapshot: .* over --snapshot-max-bytes \(100\)/)]),
      );
      expect(entries.map((e) => e.result)).toEqual(["commit-no-snapshot"]);
      expect(fs.readdirSync(cachePaths(dir).snapshots)).toEqual([]);
      expect(rb.rolled_back).toEqual([]);
      expect(rb.notes).toEqual(["no committed transaction to roll back matched"]);
    },
  );

  it.skipIf(noRuff())(
    "a write outside the snapshotted set is detected: commit-partial-snapshot",
    async () => {
      const dir = fixProject();
      // ruff also checks *.pyw here, which the snapshot (Python files by the default rules) does not cover.
      const pyproject = fs.readFileSync(path.join(dir, "pyproject.toml"), "utf8");
      fs.writeFileSync(
        path.join(dir, "pyproject.toml"),
        pyproject.replace("[tool.ruff]\n", '[tool.ruff]\nextend-include = ["*.pyw"]\n'),
      );
      fs.writeFileSync(path.join(dir, "script.pyw"), "import os\nprint(1)\n");
      const s = await serverFor(dir);
      const r = await s.call("lint_fix", { path: "." });
      await s.close();
      const tx = r.transaction as { result: string; unsnapshotted_writes: string[] };
      expect(fs.readFileSync(path.join(dir, "script.pyw"), "utf8")).toBe("print(1)\n");
      expect(tx.result).toBe("commit-partial-snapshot");
      expect(tx.unsnapshotted_writes).toEqual(["script.pyw"]);
      expect(r.notes).toEqual(
        expect.arrayContaining([expect.stringContaining("outside the snapshotted set changed")]),
      );
    },
  );

  it.skipIf(noRuff())(
    "a root locked past the wait is `locked`, writes nothing and is audited as locked-out",
    async () => {
      const dir = fixProject();
      const before = readTree(dir);
      const paths = cachePaths(dir);
      fs.mkdirSync(paths.locks, { recursive: true });
      const release = await lockfile.lock(lockTarget(paths), { ...lockOptions(paths), retries: 0 });
      const s = await serverFor(dir, { args: ["--timeout", "2"] });
      const r = await s.call("lint_fix", { path: "." });
      const f = await s.call("autoformat", { path: "." });
      await release();
      const entries = await txEntries(s, dir);
      await s.close();
      expect(r).toMatchObject({ success: false, error_type: "locked" });
      expect(r.error).toMatch(
        /another transaction is writing in .*; gave up after 2 s\. Nothing was written\./,
      );
      expect(f.error_type).toBe("locked");
      expect(readTree(dir)).toEqual(before);
      expect(entries.map((e) => [e.tool, e.result])).toEqual([
        ["lint_fix", "locked-out"],
        ["autoformat", "locked-out"],
      ]);
    },
  );

  it.skipIf(noRuff())("autoformat snapshots exactly the files the formatter will change", async () => {
    const dir = fixProject();
    const s = await serverFor(dir);
    const r = await s.call("autoformat", { path: "." });
    await s.close();
    const tx = r.transaction as { result: string; files_written: string[]; snapshot: { files: number } };
    expect(tx.result).toBe("commit");
    expect(tx.snapshot.files).toBe(8);
    expect(tx.files_written).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `pkg/m${i}.py`));
  });

  it.skipIf(noRuff())("prunes snapshots past the retention limit and rotates the audit", async () => {
    const dir = fixProject();
    const s = await serverFor(dir, { args: ["--cache-audit-max-bytes", "4096"] });
    const first = await s.call("lint_fix", { path: ".", files: ["pkg/m1.py"] });
    const runId = (first.transaction as { run_id: string }).run_id;
    const manifestFile = path.join(cachePaths(dir).snapshots, runId, "manifest.json");
    const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as { created: string };
    manifest.created = new Date(Date.now() - 8 * 24 * 3600 * 1000).toISOString();
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    for (let i = 2; i <= 8; i++) await s.call("lint_fix", { path: ".", files: [`pkg/m${i}.py`] });
    // Runs that write nothing are audited too (and keep no snapshot).
    for (let i = 0; i < 4; i++) await s.call("autoformat", { path: "pkg/clean.py" });
    const entries = await txEntries(s, dir);
    const commits = await txEntries(s, dir, { tool: "lint_fix", result: "commit", limit: 3 });
    const none = await txEntries(s, dir, { since: new Date(Date.now() + 60_000).toISOString() });
    await s.close();
    expect(fs.existsSync(path.dirname(manifestFile))).toBe(false);
    expect(fs.readdirSync(cachePaths(dir).snapshots)).toHaveLength(7);
    const sidecars = fs.readdirSync(cachePaths(dir).dir).filter((n) => /^audit\.jsonl\..+\.jsonl$/.test(n));
    expect(sidecars.length).toBeGreaterThan(0);
    expect(fs.statSync(cachePaths(dir).audit).size).toBeLessThanOrEqual(4096);
    expect(entries).toHaveLength(12);
    expect(entries[0]?.run_id).toBe(runId);
    expect(entries.slice(8).map((e) => [e.tool, e.files_written])).toEqual(Array(4).fill(["autoformat", []]));
    expect(commits.map((e) => e.files_written)).toEqual([["pkg/m6.py"], ["pkg/m7.py"], ["pkg/m8.py"]]);
    expect(none).toEqual([]);
  });

  it("get_audit_log: result needs a path; the server log reads as before", async () => {
    const dir = fixProject();
    const s = await serverFor(dir);
    const bad = await s.call("get_audit_log", { result: "commit" });
    const plain = await s.call("get_audit_log", { tool: "get_audit_log" });
    await s.close();
    expect(bad.error_type).toBe("invalid_input");
    expect(plain.success).toBe(true);
    expect((plain.entries as { operation: string }[]).map((e) => e.operation)).toEqual(["get_audit_log"]);
  });
});
