/**
 * Issue 41, seed 001 drop-in side by side with the original eslint-typescript-mcp 1.2.0 on one project:
 * our transactions and the original's exclude each other (we take its lock beside ours), and our rollback
 * restores the original's snapshots byte for byte, also after the original rolled back a later fix_all
 * (which rewrites every file of its snapshot, so file times alone said "changed since": success false,
 * nothing restored).
 *
 * CI has no copy of the original (it is not on npm, and CI cannot fetch GitHub), so these run without it:
 * the lock is proper-lockfile itself, which the original uses, taking `.mcp-cache/locks/.cwd-sentinel` with
 * the options of the original's src/lock.ts and src/config.ts (checked against the original's source at
 * commit 14f7f68, and against the running original below); the rollback reads a `.mcp-cache/` the original
 * wrote (test/fixtures/eslint-typescript/original-chain, captured from it). With
 * ESLINT_TYPESCRIPT_MCP_ORIGINAL=<its dist/index.js> the last block runs the real original beside ours
 * (local only; skipped otherwise, and not CI coverage).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import lockfile from "proper-lockfile";
import { afterAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { TEST_STEP_STOP_ENV, TEST_STEP_STOP_MESSAGE } from "../../src/fix/test-pause.js";
import { FIXTURES, REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { auditLines, dropIn, type DropIn, type Json } from "./drop-in.js";

const CHAIN = path.join(FIXTURES, "eslint-typescript", "original-chain");
const ORIGINAL_ENTRY = process.env.ESLINT_TYPESCRIPT_MCP_ORIGINAL;

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** How the original takes its lock (src/lock.ts; LOCK_STALE_MS, LOCK_UPDATE_MS, LOCK_RETRIES of src/config.ts). */
function originalLock(
  dir: string,
  retries: number | object = { retries: 5, minTimeout: 100, maxTimeout: 2000 },
) {
  const locks = path.join(dir, ".mcp-cache", "locks");
  fs.mkdirSync(locks, { recursive: true });
  const sentinel = path.join(locks, ".cwd-sentinel");
  fs.writeFileSync(sentinel, "", { flag: "a" });
  return lockfile.lock(sentinel, {
    stale: 60_000,
    update: 5_000,
    retries,
    realpath: false,
    lockfilePath: `${sentinel}.lock`,
    onCompromised: () => {},
  });
}

/** The side-by-side project: prefer-const fixes in a.ts and b.ts, an `any` left, a type error in c.ts. */
function project(prefix: string): string {
  const dir = tempDir(prefix);
  fs.cpSync(path.join(CHAIN, "project"), dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "src", "a.ts"), "let total = 1;\nexport const a: any = total;\n");
  fs.writeFileSync(path.join(dir, "src", "b.ts"), "let n = 2;\nexport const b = n;\n");
  fs.writeFileSync(path.join(dir, "src", "c.ts"), 'export const c: number = "x";\n');
  // The project's toolchain (ESLint, typescript-eslint, TypeScript), as in the side-by-side runs.
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, "src", f), "utf8");

async function until<T>(what: () => T | undefined, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const servers: DropIn[] = [];
afterAll(async () => {
  for (const s of servers) await s.close().catch(() => {});
});

async function ours(dir: string, env: Record<string, string> = {}): Promise<DropIn> {
  const s = await dropIn(dir, env);
  servers.push(s);
  return s;
}

describe("our lock and the original's exclude each other", () => {
  it("while the original holds its lock, our lint_fix waits and writes nothing; then it runs", async () => {
    const dir = project("mcq-sbs-wait-");
    const release = await originalLock(dir);
    const s = await ours(dir);
    const fixing = s.call("lint_fix", {});
    // Our root lock is taken: the transaction now waits for the original's.
    await until(() => (fs.existsSync(path.join(dir, ".mcp-cache", "locks", "root.lock")) ? true : undefined));
    expect(read(dir, "b.ts")).toBe("let n = 2;\nexport const b = n;\n");
    expect(fs.readdirSync(path.join(dir, ".mcp-cache", "journal"))).toEqual([]);
    const releasedAt = Date.now();
    await release();
    const r = await fixing;
    expect(r.success).toBe(true);
    expect(read(dir, "b.ts")).toBe("const n = 2;\nexport const b = n;\n");
    const [line] = auditLines(dir);
    expect(line).toMatchObject({ tool: "lint_fix", result: "commit" });
    expect(Date.parse(line!.lock_acquired as string)).toBeGreaterThanOrEqual(releasedAt);
  });

  it("while ours holds its locks, the original cannot take its lock", async () => {
    const dir = project("mcq-sbs-held-");
    const s = await ours(dir, { [TEST_STEP_STOP_ENV]: "1" });
    const fixing = s.call("lint_fix", {});
    // Stopped (SIGSTOP) after its fix step, locks held.
    const pid = await until(() => {
      const m = new RegExp(`${TEST_STEP_STOP_MESSAGE} 1: run \\S+ pid (\\d+)`).exec(s.stderr());
      return m ? Number(m[1]) : undefined;
    });
    try {
      await expect(originalLock(dir, 0)).rejects.toMatchObject({ code: "ELOCKED" });
    } finally {
      process.kill(pid, "SIGCONT");
    }
    expect(await fixing).toMatchObject({ success: true });
    // Released with our transaction: the original's next attempt takes it.
    const release = await originalLock(dir, 0);
    await release();
  });
});

/** The captured chain in a temp dir: paths rewritten, file times as the original left them. */
function capturedChain(): string {
  const dir = tempDir("mcq-orig-chain-");
  fs.cpSync(path.join(CHAIN, "project"), dir, { recursive: true });
  fs.cpSync(path.join(CHAIN, "mcp-cache"), path.join(dir, ".mcp-cache"), { recursive: true });
  const rewrite = (file: string) =>
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replaceAll("/var/tmp/mcq-orig-chain", dir));
  rewrite(path.join(dir, ".mcp-cache", "audit.jsonl"));
  const snapshots = path.join(dir, ".mcp-cache", "snapshots");
  for (const id of fs.readdirSync(snapshots)) rewrite(path.join(snapshots, id, "manifest.json"));
  const mtimes = JSON.parse(fs.readFileSync(path.join(CHAIN, "mtimes.json"), "utf8")) as Record<
    string,
    number
  >;
  for (const [file, ms] of Object.entries(mtimes)) fs.utimesSync(path.join(dir, file), ms / 1000, ms / 1000);
  return dir;
}

describe("rollback of the original's commit after it rolled back a later fix_all", () => {
  it("restores the commit's snapshot byte for byte (success: false and nothing restored before)", async () => {
    const dir = capturedChain();
    const [commit] = auditLines(dir);
    const manifest = JSON.parse(
      fs.readFileSync(path.join(commit!.snapshotRef as string, "manifest.json"), "utf8"),
    ) as { entries: { absPath: string; sha256: string }[] };
    const s = await ours(dir);
    const r = await s.call("rollback", {});
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(r.note).toMatch(new RegExp(`Rolled back ${commit!.runId as string} \\(lint_fix, `));
    for (const e of manifest.entries) {
      const now = fs.readFileSync(e.absPath);
      expect(sha(now), e.absPath).toBe(e.sha256);
      expect(now).toEqual(fs.readFileSync(path.join(commit!.snapshotRef as string, e.sha256)));
    }
    expect(read(dir, "a.ts")).toBe("let total = 1;\nexport const a: any = total;\n");
    expect(read(dir, "b.ts")).toBe("let n = 2;\nexport const b = n;\n");
  });

  it("leaves a file edited after the original's rollback, as a conflict", async () => {
    const dir = capturedChain();
    fs.writeFileSync(path.join(dir, "src", "b.ts"), "export const b = 3;\n");
    const s = await ours(dir);
    const r = await s.call("rollback", {});
    expect(read(dir, "b.ts")).toBe("export const b = 3;\n");
    expect(read(dir, "a.ts")).toBe("let total = 1;\nexport const a: any = total;\n");
    expect(r.note).toMatch(/Left alone \(changed after their transaction\): src\/b\.ts\./);
  });
});

/** The real original, started as its README says, driven through the SDK client. */
async function original(dir: string) {
  const transport = new StdioClientTransport({
    command: "node",
    args: [ORIGINAL_ENTRY as string],
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stderr: "pipe",
  });
  const client = new Client({ name: "seed-001-client", version: "1.0.0" });
  await client.connect(transport);
  return {
    call: async (name: string, args: Json = {}) => {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 });
      return JSON.parse((r.content as { text: string }[])[0]!.text) as Json;
    },
    close: () => client.close(),
  };
}

describe.skipIf(!ORIGINAL_ENTRY)(
  "beside the real original (ESLINT_TYPESCRIPT_MCP_ORIGINAL; local only)",
  () => {
    it("the original is locked out while ours holds its locks", async () => {
      const dir = project("mcq-real-held-");
      const s = await ours(dir, { [TEST_STEP_STOP_ENV]: "1" });
      const fixing = s.call("lint_fix", {});
      const pid = await until(() => {
        const m = new RegExp(`${TEST_STEP_STOP_MESSAGE} 1: run \\S+ pid (\\d+)`).exec(s.stderr());
        return m ? Number(m[1]) : undefined;
      });
      const o = await original(dir);
      try {
        const r = await o.call("lint_fix");
        expect(r).toMatchObject({ success: false });
        expect(r.error).toMatch(/Another transaction holds the lock/);
      } finally {
        process.kill(pid, "SIGCONT");
        await o.close();
      }
      expect(await fixing).toMatchObject({ success: true });
      expect(auditLines(dir).map((l) => [l.tool, l.result])).toEqual([
        ["lint_fix", "locked-out"],
        ["lint_fix", "commit"],
      ]);
    });

    it("ours waits for the original's fix; their lock holds never overlap", async () => {
      const dir = project("mcq-real-wait-");
      const o = await original(dir);
      const s = await ours(dir);
      try {
        const theirs = o.call("fix_all");
        await until(() =>
          fs.existsSync(path.join(dir, ".mcp-cache", "locks", ".cwd-sentinel.lock")) ? true : undefined,
        );
        const mine = await s.call("lint_fix", {});
        await theirs;
        expect(mine.success).toBe(true);
        const [first, second] = auditLines(dir);
        expect([first!.tool, first!.runId === undefined]).toEqual(["fix_all", false]);
        expect(Date.parse(second!.lock_acquired as string)).toBeGreaterThanOrEqual(
          Date.parse(first!.lockReleasedAt as string),
        );
      } finally {
        await o.close();
      }
    });

    it("our rollback restores the original's lint_fix after its fix_all rolled back, byte for byte", async () => {
      const dir = project("mcq-real-chain-");
      const before = new Map(
        ["a.ts", "b.ts", "c.ts"].map((f) => [f, fs.readFileSync(path.join(dir, "src", f))]),
      );
      const o = await original(dir);
      try {
        expect(await o.call("lint_fix")).toMatchObject({ success: true });
        expect(await o.call("fix_all")).toMatchObject({ success: false });
      } finally {
        await o.close();
      }
      expect(read(dir, "b.ts")).toBe("const n = 2;\nexport const b = n;\n");
      const r = await (await ours(dir)).call("rollback", {});
      expect(r.success, JSON.stringify(r)).toBe(true);
      for (const [f, bytes] of before) expect(fs.readFileSync(path.join(dir, "src", f)), f).toEqual(bytes);
    });
  },
);
