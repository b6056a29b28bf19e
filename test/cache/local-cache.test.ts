/**
 * The local result cache: bounded (least recently used entries go), safe for servers writing at once,
 * kept in the per-user folder and never in the project (a read-only tool still writes nothing there),
 * off with --result-cache false.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LocalStore } from "../../src/cache/local-store.js";
import { connectStdio, FIXTURES } from "../helpers/server.js";
import { copyFixture, missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const PATH = `${TOOLS_VENV_BIN}:${process.env.PATH}`;
const FIXTURE = path.join(FIXTURES, "python", "lint-project");
const key = (n: number) => n.toString(16).padStart(64, "0");

/** Every file under `dir` with its size and mtime (what a write would change). */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = fs.lstatSync(p);
        out.push(`${path.relative(dir, p)} ${st.size} ${st.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.sort();
}

function entries(dir: string): string[] {
  return fs.existsSync(dir) ? tree(dir).filter((l) => !l.includes(".tmp-")) : [];
}

describe("LocalStore", () => {
  it("stays under its size, dropping the least recently used entries", async () => {
    const dir = tempDir("mcq-store-");
    const store = new LocalStore(dir, 64 * 1024);
    const data = "x".repeat(4096);
    for (let i = 0; i < 16; i++) store.put(key(i), data);
    await store.flush();
    // Entry 0 is read (recently used); then 16 more are written, which sweeps past 64 KiB.
    expect(store.get(key(0))?.toString()).toBe(data);
    await new Promise((r) => setTimeout(r, 20)); // mtime order between the read and the writes after it
    for (let i = 16; i < 32; i++) store.put(key(i), data);
    await store.flush();
    const { bytes } = await store.sweep();
    expect(bytes).toBeLessThanOrEqual(64 * 1024);
    expect(store.get(key(31))?.toString()).toBe(data);
    expect(store.get(key(1))).toBeUndefined(); // oldest, never read again: gone
    expect(fs.statSync(path.join(dir, "v1")).mode & 0o777).toBe(0o700);
  });

  it("never leaves a half-written entry: concurrent writers of one key each rename a whole file", async () => {
    const dir = tempDir("mcq-store-");
    const stores = [0, 1, 2, 3].map(() => new LocalStore(dir, 1 << 30));
    const values = stores.map((_, i) => String(i).repeat(200_000));
    for (let round = 0; round < 5; round++) stores.forEach((s, i) => s.put(key(7), values[i] as string));
    await Promise.all(stores.map((s) => s.flush()));
    expect(values).toContain(stores[0]!.get(key(7))?.toString());
    expect(fs.readdirSync(path.join(dir, "v1", "00")).filter((n) => n.startsWith(".tmp-"))).toEqual([]);
  });

  it("does not read an entry that is a symbolic link", () => {
    const dir = tempDir("mcq-store-");
    const store = new LocalStore(dir, 1 << 20);
    const secret = path.join(tempDir("mcq-secret-"), "secret");
    fs.writeFileSync(secret, "{}");
    fs.mkdirSync(path.join(dir, "v1", "00"), { recursive: true });
    fs.symlinkSync(secret, path.join(dir, "v1", "00", key(9)));
    expect(store.get(key(9))).toBeUndefined();
  });
});

describe.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("the result cache of servers", () => {
  it("servers writing the same entries at once all answer, and a later one reads them whole", async () => {
    const xdg = tempDir("mcq-xdg-");
    const dirs = [0, 1, 2].map(() => copyFixture(FIXTURE));
    const servers = await Promise.all(
      dirs.map((d) =>
        connectStdio({
          args: ["--allowed-paths", d, "--rate-limit", "false", "--result-cache", "true"],
          env: { PATH, XDG_CACHE_HOME: xdg },
        }),
      ),
    );
    const results = await Promise.all(
      servers.map((s, i) => s.call("lint", { path: dirs[i], linter: "ruff" })),
    );
    await Promise.all(servers.map((s) => s.close()));
    for (const r of results) expect(r.issue_count).toBe(4);
    const later = copyFixture(FIXTURE);
    const s = await connectStdio({
      args: ["--allowed-paths", later, "--rate-limit", "false", "--result-cache", "true"],
      env: { PATH, XDG_CACHE_HOME: xdg },
    });
    const hit = await s.call("lint", { path: later, linter: "ruff" });
    await s.close();
    expect(hit.cached).toBe("5 of 5 files");
    expect(hit.issue_count).toBe(4);
  });

  it("writes nothing into the project, and refuses a cache folder inside an allowed path", async () => {
    const dir = copyFixture(FIXTURE);
    const before = tree(dir);
    const inside = path.join(dir, "cache-here");
    const s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false", "--result-cache", "true"],
      env: { PATH, XDG_CACHE_HOME: tempDir("mcq-xdg-"), MCP_CODE_QUALITY_RESULT_CACHE_DIR: inside },
    });
    const first = await s.call("lint", { path: dir, linter: "ruff" });
    const second = await s.call("lint", { path: dir, linter: "ruff" });
    await s.call("format_check", { path: dir, language: "python" });
    await s.close();
    expect(first.cached).toBe("0 of 5 files");
    expect(second.cached).toBe("5 of 5 files"); // in memory only
    expect(s.stderr()).toContain(`result cache: ${inside} is inside the allowed path ${dir}`);
    expect(tree(dir)).toEqual(before);
  });

  it("keys what a tool reads beyond its files: a git repository (ruff's .gitignore), a new .flake8", async () => {
    const xdg = tempDir("mcq-xdg-");
    const plain = copyFixture(FIXTURE);
    const repo = copyFixture(FIXTURE);
    execFileSync("git", ["init", "-q"], { cwd: repo });
    const s = await connectStdio({
      args: ["--allowed-paths", `${plain},${repo}`, "--rate-limit", "false", "--result-cache", "true"],
      env: { PATH, XDG_CACHE_HOME: xdg },
    });
    try {
      // The same files: outside a repository ruff lints the .gitignore'd file too.
      expect((await s.call("lint", { path: plain, linter: "ruff" })).issue_count).toBe(4);
      expect((await s.call("lint", { path: repo, linter: "ruff" })).issue_count).toBe(2);
      if (!missing("flake8")) {
        const before = await s.call("lint", { path: plain, linter: "flake8" });
        fs.writeFileSync(path.join(plain, ".flake8"), "[flake8]\nextend-ignore = F401\n");
        const after = await s.call("lint", { path: plain, linter: "flake8" });
        expect(after.cached).toMatch(/^0 of/);
        expect(after.issue_count as number).toBeLessThan(before.issue_count as number);
      }
    } finally {
      await s.close();
    }
  });

  it("--result-cache false: no cache, no marker, nothing written", async () => {
    const dir = copyFixture(FIXTURE);
    const xdg = tempDir("mcq-xdg-");
    const s = await connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false", "--result-cache", "false"],
      env: { PATH, XDG_CACHE_HOME: xdg },
    });
    const r = await s.call("lint", { path: dir, linter: "ruff" });
    await s.close();
    expect(r.cached).toBeUndefined();
    expect(entries(path.join(xdg, "mcp-code-quality", "results"))).toEqual([]);
  });
});
