/**
 * Issue 38 ("transactions under stalls"): a full disk leaves no temp file behind. The project and the
 * result cache live on a small tmpfs (mounted as root, as CI runs) filled to a few free pages, then to none;
 * `check` (its result cache there) runs as a real CLI process, and lint, lint_fix, autoformat and fix_all
 * through one real server. Every call
 * answers, every project file holds its content from before or after the fix (never a cut-off one), and no
 * `.mcq-*.tmp` (safe-fs) or `.tmp-*` (result cache) file remains on the filesystem.
 * Before, the result cache left an empty `.tmp-*` file for each write that hit ENOSPC.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCheck } from "../helpers/check.js";
import { tempDir } from "../helpers/tools.js";
import { noRuff, ruffDirect, serverFor } from "./helpers.js";

const isRoot = process.getuid?.() === 0;
const mounted: string[] = [];
afterAll(() => {
  for (const m of mounted) spawnSync("umount", ["-l", m]);
});

/** Files whose name says a writer meant to rename them into place. */
const TEMP = /^\.mcq-[0-9a-f]{24}\.tmp$|^\.tmp-/;

function tempFilesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const abs = path.join(d, e.name);
      if (e.isDirectory()) walk(abs);
      else if (TEMP.test(e.name)) out.push(path.relative(dir, abs));
    }
  };
  walk(dir);
  return out;
}

/**
 * The temp files left once writes in flight are done: the server stores results in its cache after it
 * answers, so a temp file may exist for a moment; one still there after 10 s was left behind.
 */
async function leftTempFiles(dir: string): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const left = tempFilesUnder(dir);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ORIGINAL = "import os\nimport sys\n\n\nprint( sys.argv )\n";
const FILES = 12;

/** Leaves `pages` pages free on the filesystem of `dir` (a filler file takes the rest). */
function fill(dir: string, pages: number): void {
  const filler = path.join(dir, "filler");
  fs.rmSync(filler, { force: true });
  const st = fs.statfsSync(dir);
  const want = Math.max(0, (st.bavail - pages) * st.bsize);
  const fd = fs.openSync(filler, "w");
  const chunk = Buffer.alloc(st.bsize, 1);
  try {
    for (let done = 0; done < want; done += chunk.length) fs.writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    fs.closeSync(fd);
  }
}

/** ORIGINAL as the ruff CLI leaves it after no step, its lint fix, its format, and both in either order. */
function wholeStates(): string[] {
  const dir = tempDir("mcq-full-disk-ref-");
  fs.writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "p"\n');
  const file = path.join(dir, "m.py");
  const after = (steps: string[][]) => {
    fs.writeFileSync(file, ORIGINAL);
    for (const step of steps) ruffDirect(dir, [...step, "m.py"]);
    return fs.readFileSync(file, "utf8");
  };
  const fix = ["check", "--fix", "--no-cache"];
  const format = ["format", "--no-cache"];
  return [ORIGINAL, after([fix]), after([format]), after([fix, format]), after([format, fix])];
}

describe("a full disk", () => {
  it.skipIf(!isRoot || noRuff())(
    "leaves no temp file, and no file cut off, whatever the call and however little space is left",
    async () => {
      const disk = tempDir("mcq-full-disk-");
      const mount = spawnSync("mount", ["-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", disk]);
      expect(mount.status, mount.stderr?.toString()).toBe(0);
      mounted.push(disk);
      const proj = path.join(disk, "proj");
      const pkg = path.join(proj, "pkg");
      fs.mkdirSync(pkg, { recursive: true });
      fs.writeFileSync(path.join(proj, "pyproject.toml"), '[project]\nname = "p"\n');
      const cache = path.join(disk, "cache");
      const s = await serverFor(proj, {
        args: ["--rate-limit", "false", "--result-cache", "true", "--result-cache-dir", cache],
      });
      const whole = wholeStates();
      const seen = new Set<string>();
      try {
        for (const pages of [64, 16, 4, 0]) {
          for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(pkg, `m${i}.py`), ORIGINAL);
          // New content for the result cache at each level: lint stores its results again, on a full disk.
          fs.writeFileSync(path.join(pkg, "level.py"), `LEVEL = ${pages}\n` + "x = 1\n".repeat(2000));
          fs.rmSync(path.join(proj, ".mcp-cache"), { recursive: true, force: true });
          fill(disk, pages);
          // The result cache's writes: `check` stores each file's ruff result there.
          const checked = await runCheck(
            ["--only", "ruff", "--result-cache", "true", "--result-cache-dir", cache, "--json", "pkg"],
            {
              cwd: proj,
            },
          );
          seen.add(`check: exit ${checked.status}`);
          expect(await leftTempFiles(disk), `check with ${pages} page(s) free`).toEqual([]);
          for (const [tool, args] of [
            ["lint", { path: "pkg" }],
            ["lint_fix", { path: "pkg" }],
            ["autoformat", { path: "pkg" }],
            ["fix_all", { path: "pkg", skip_typecheck: true }],
          ] as const) {
            const r = await s.call(tool, args).catch((e: unknown) => ({ thrown: String(e) }));
            seen.add(`${tool}: ${"success" in r ? r.success : "thrown"}`);
            expect(await leftTempFiles(disk), `${tool} with ${pages} page(s) free`).toEqual([]);
            for (let i = 0; i < FILES; i++) {
              const text = fs.readFileSync(path.join(pkg, `m${i}.py`), "utf8");
              // Before, after the lint fix, after the format, or after both: whole files only.
              expect(whole, `m${i}.py after ${tool} with ${pages} page(s) free`).toContain(text);
            }
          }
        }
      } finally {
        await s.close();
      }
      // The disk was full enough for some calls to fail (else the test shows nothing).
      expect(
        [...seen].some((x) => !x.endsWith("true")),
        [...seen].join(", "),
      ).toBe(true);
    },
    240_000,
  );
});
