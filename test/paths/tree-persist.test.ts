/**
 * Issue 42: the tree scan's walks kept between processes (tree-scan.ts persistTo): a fresh scanner (a fresh
 * `check`) reuses a walk a former one stored while every folder it listed and every file it read keeps its
 * stat, and walks again after any change to them. Real folders, the real result-cache store, and a real
 * `check` process for the end-to-end guarantee: a new file is never missed.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LocalStore } from "../../src/cache/local-store.js";
import { treeStateKey } from "../../src/cache/tree-state-key.js";
import { decodeTreeState, encodeTreeState } from "../../src/paths/tree-persist.js";
import { TreeScanner } from "../../src/paths/tree-scan.js";
import { tempDir } from "../helpers/tools.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function tree(): Promise<string> {
  const dir = tempDir("mcq-tree-persist-");
  for (const d of ["a", "a/b", "c"]) fs.mkdirSync(path.join(dir, d), { recursive: true });
  for (const f of ["x.py", "a/y.py", "a/b/z.py", "c/w.py", "c/.gitignore"])
    fs.writeFileSync(path.join(dir, f), "");
  // Old enough that a stat tells a later change apart (a folder changed in the last 50 ms is not trusted).
  await pause(100);
  return dir;
}

/** A scanner as a fresh process has one, on the store at `cache`; `walks` counts the walks it made. */
function freshScanner(cache: string, root: string) {
  const store = new LocalStore(cache, 64 * 1024 * 1024);
  const scan = new TreeScanner();
  scan.persistTo(store, [root], store.root, treeStateKey);
  let walks = 0;
  const files = () =>
    scan.remember(JSON.stringify(["test-walk", root]), () => {
      walks++;
      // A walk that reads a file's content too, as a .gitignore is read.
      scan.dependsOnFile(path.join(root, "c", ".gitignore"));
      return { files: scan.walk(root, () => false).files.map((f) => path.relative(root, f)) };
    }).files;
  return { scan, store, files, walks: () => walks };
}

/** Runs a scanner's process to its end: its walks stored as a process would at exit. */
async function endProcess(s: { scan: TreeScanner; store: LocalStore }): Promise<void> {
  s.scan.savePersisted();
  await s.store.flush();
}

describe("the tree scan kept between processes", () => {
  it("a fresh scanner reuses the walk a former one stored, by a stat of what it read", async () => {
    const root = await tree();
    const cache = tempDir("mcq-tree-persist-cache-");
    const first = freshScanner(cache, root);
    expect(first.files()).toEqual(["a/b/z.py", "a/y.py", "c/.gitignore", "c/w.py", "x.py"]);
    expect(first.walks()).toBe(1);
    await endProcess(first);

    const second = freshScanner(cache, root);
    expect(second.files()).toEqual(["a/b/z.py", "a/y.py", "c/.gitignore", "c/w.py", "x.py"]);
    expect(second.walks()).toBe(0);
    expect(second.scan.rememberedByStat).toBe(1);
    // Not a folder listed: the stored walk answered.
    expect(second.scan.listed).toBe(0);
  });

  it("walks again after a file is added, a folder is replaced, or a file it read changed", async () => {
    const root = await tree();
    const cache = tempDir("mcq-tree-persist-cache-");
    const changes: [string, () => void, string[]][] = [
      [
        "a file added deep down",
        () => fs.writeFileSync(path.join(root, "a", "b", "new.py"), ""),
        ["a/b/new.py", "a/b/z.py", "a/y.py", "c/.gitignore", "c/w.py", "x.py"],
      ],
      [
        "a folder renamed away and another made in its place",
        () => {
          fs.renameSync(path.join(root, "a", "b"), path.join(root, "old-b"));
          fs.mkdirSync(path.join(root, "a", "b"));
          fs.writeFileSync(path.join(root, "a", "b", "other.py"), "");
          fs.renameSync(path.join(root, "old-b"), path.join(root, "a", "b-was"));
        },
        ["a/b/other.py", "a/b-was/new.py", "a/b-was/z.py", "a/y.py", "c/.gitignore", "c/w.py", "x.py"],
      ],
      [
        "the file it read rewritten (same size)",
        () => fs.writeFileSync(path.join(root, "c", ".gitignore"), ""),
        ["a/b/other.py", "a/b-was/new.py", "a/b-was/z.py", "a/y.py", "c/.gitignore", "c/w.py", "x.py"],
      ],
    ];
    const warm = freshScanner(cache, root);
    warm.files();
    await endProcess(warm);
    for (const [what, change, expected] of changes) {
      change();
      await pause(100);
      const next = freshScanner(cache, root);
      expect(next.files(), what).toEqual(expected);
      expect(next.walks(), what).toBe(1);
      await endProcess(next);
      // And the walk stored after the change is reused by the next process.
      const after = freshScanner(cache, root);
      expect(after.files(), what).toEqual(expected);
      expect(after.walks(), what).toBe(0);
    }
  });

  it("a walk of a folder changed in the last 50 ms is not kept for a stat to vouch for", async () => {
    const root = await tree();
    const cache = tempDir("mcq-tree-persist-cache-");
    const first = freshScanner(cache, root);
    fs.writeFileSync(path.join(root, "c", "fresh.py"), "");
    expect(first.files()).toContain("c/fresh.py");
    await endProcess(first);
    const second = freshScanner(cache, root);
    second.files();
    expect(second.walks()).toBe(1);
  });

  it("a stored state of another root, or damaged, is not read", () => {
    const root = tempDir("mcq-tree-persist-");
    const walk = {
      key: "k",
      value: { files: ["f"] },
      dirs: [root],
      files: [],
      stats: [[1n, 2n, 3n, 0n] as const],
    };
    const data = encodeTreeState(root, [walk]) as Buffer;
    expect(decodeTreeState(data, root)?.map((w) => w.value)).toEqual([{ files: ["f"] }]);
    expect(decodeTreeState(data, path.join(root, "other"))).toBeUndefined();
    expect(decodeTreeState(data.subarray(0, data.length - 9), root)).toBeUndefined();
    expect(decodeTreeState(Buffer.from("not v8 at all"), root)).toBeUndefined();
    // A walk whose folders lie outside the root is refused whole.
    const outside = encodeTreeState(root, [{ ...walk, dirs: ["/etc"] }]) as Buffer;
    expect(decodeTreeState(outside, root)).toBeUndefined();
    expect(treeStateKey(root)).not.toBe(treeStateKey(path.join(root, "other")));
  });
});

describe("a fresh check with its walks kept", () => {
  it("finds a Python file added in a new folder after its walks were stored", async () => {
    const root = tempDir("mcq-tree-persist-check-");
    fs.writeFileSync(
      path.join(root, "pyproject.toml"),
      '[project]\nname = "t"\n[tool.ruff.lint]\nselect = ["F"]\n',
    );
    fs.mkdirSync(path.join(root, "pkg"));
    fs.writeFileSync(path.join(root, "pkg", "ok.py"), "x = 1\n");
    await pause(100);
    const cacheHome = tempDir("mcq-tree-persist-xdg-");
    const cli = path.resolve("dist/cli.js");
    const check = () => {
      const r = spawnSync(process.execPath, [cli, "check", ".", "--only", "ruff", "--json"], {
        cwd: root,
        // The suite turns the result cache off by default; this test is about it.
        env: { ...process.env, XDG_CACHE_HOME: cacheHome, MCP_CODE_QUALITY_RESULT_CACHE: "true" },
        encoding: "utf8",
      });
      const report = JSON.parse(r.stdout) as { findings: { file: string; rule_id?: string }[] };
      return report.findings.map((f) => `${f.file} ${f.rule_id ?? ""}`);
    };
    expect(check()).toEqual([]);
    expect(check()).toEqual([]);
    // A stored walk of the tree exists now.
    const stored = fs.readdirSync(path.join(cacheHome, "mcp-code-quality"), { recursive: true }).length;
    expect(stored).toBeGreaterThan(0);
    fs.mkdirSync(path.join(root, "pkg", "sub"));
    fs.writeFileSync(path.join(root, "pkg", "sub", "bad.py"), "import os\n");
    expect(check()).toEqual(["pkg/sub/bad.py F401"]);
  });
});
