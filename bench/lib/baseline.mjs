// The "before" side of a before/after benchmark: a built copy of another git ref of this repository
// (default: where this branch left main, `git merge-base HEAD main`; MCQ_BASELINE_REF to change, or
// MCQ_BASELINE_DIR for an existing built checkout of that ref).
// It shares this checkout's node_modules, so only the server's own code differs.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

let cached;

/** { dir, ref, commit } of the baseline, built on first use; undefined when it cannot be built. */
export function baseline(repo) {
  if (cached !== undefined) return cached || undefined;
  try {
    const ref =
      process.env.MCQ_BASELINE_REF ??
      execFileSync("git", ["merge-base", "HEAD", "main"], { cwd: repo, encoding: "utf8" }).trim();
    let dir = process.env.MCQ_BASELINE_DIR;
    const commit = execFileSync("git", ["rev-parse", "--short", ref], { cwd: repo, encoding: "utf8" }).trim();
    if (!dir) {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-baseline-"));
      const archive = execFileSync("git", ["archive", ref], { cwd: repo, maxBuffer: 1 << 30 });
      execFileSync("tar", ["-x", "-C", dir], { input: archive });
      fs.symlinkSync(path.join(repo, "node_modules"), path.join(dir, "node_modules"), "dir");
      process.stderr.write(`building the baseline (${ref} ${commit}) in ${dir}\n`);
      // The ref's own build (not tsc alone): its bundles and build id are part of how it starts.
      execFileSync("npm", ["run", "build"], { cwd: dir, stdio: ["ignore", 2, 2] });
    }
    cached = {
      dir,
      ref: ref.length === 40 ? "main (merge-base)" : ref,
      commit,
      cli: path.join(dir, "dist", "cli.js"),
    };
  } catch (err) {
    process.stderr.write(`no baseline: ${err instanceof Error ? err.message : String(err)}\n`);
    cached = false;
  }
  return cached || undefined;
}
