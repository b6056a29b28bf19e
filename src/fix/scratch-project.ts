/**
 * A scratch copy of a project, for a dry run that runs what the real run would (fix_all's verification: the
 * fixes and formatting written in the copy, then the type check of the copy). The project's own files are
 * copied; what its tools resolve but never change is linked: dependency folders (`node_modules`), virtualenvs
 * (`pyvenv.cfg`), `.git`, cache-tagged folders (cargo's `target/`). Caches and the server's own state are
 * left out. Bounded in files and bytes; the caller removes it.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import { makeScratchDir } from "../exec/sandbox/scratch.js";

export interface ScratchProject {
  /** The copy's root (canonical). */
  root: string;
  /** The project it copies. */
  real: string;
  toScratch(file: string): string;
  toReal(file: string): string;
  /** Every occurrence of the copy's root in `text` put back as the project's. */
  realText(text: string): string;
  remove(): void;
}

export const MAX_SCRATCH_FILES = 20_000;
export const MAX_SCRATCH_BYTES = 256 * 1024 * 1024;

/** Folders linked, not copied: the tools read them, the fixes never write them. */
const LINKED = new Set(["node_modules", ".git"]);
/** Folders left out: caches the tools rebuild, the server's own state. */
const SKIPPED = new Set([
  ".mcp-cache",
  "__pycache__",
  ".mypy_cache",
  ".ruff_cache",
  ".pytest_cache",
  ".tox",
  ".nox",
  ".eslintcache",
]);

function linked(dir: string, name: string): boolean {
  return (
    LINKED.has(name) ||
    fs.existsSync(path.join(dir, "pyvenv.cfg")) ||
    fs.existsSync(path.join(dir, "CACHEDIR.TAG"))
  );
}

/** A bounded copy of `real` in the per-user scratch folder (see the module comment). */
export function scratchProject(real: string): ScratchProject {
  const root = fs.realpathSync(makeScratchDir("mcq-dry-run-"));
  const budget = { files: MAX_SCRATCH_FILES, bytes: MAX_SCRATCH_BYTES };
  const remove = () => fs.rmSync(root, { recursive: true, force: true });
  const copy = (from: string, to: string) => {
    for (const e of fs.readdirSync(from, { withFileTypes: true })) {
      if (SKIPPED.has(e.name)) continue;
      const src = path.join(from, e.name);
      const dest = path.join(to, e.name);
      if (e.isSymbolicLink()) {
        // A link points where it points in the project (its resolved target); a broken one is left out.
        let target: string | undefined;
        try {
          target = fs.realpathSync.native(src);
        } catch {
          target = undefined;
        }
        if (target) fs.symlinkSync(target, dest);
      } else if (e.isDirectory()) {
        if (linked(src, e.name)) fs.symlinkSync(src, dest);
        else {
          fs.mkdirSync(dest, { mode: 0o700 });
          copy(src, dest);
        }
      } else if (e.isFile()) {
        const size = fs.statSync(src).size;
        budget.files -= 1;
        budget.bytes -= size;
        if (budget.files < 0 || budget.bytes < 0)
          throw new ToolError(
            "invalid_input",
            `${real} is too large to copy for a dry run (over ${MAX_SCRATCH_FILES} files or ${MAX_SCRATCH_BYTES / 1024 / 1024} MiB outside its dependency folders)`,
          );
        fs.copyFileSync(src, dest);
        fs.chmodSync(dest, fs.statSync(src).mode & 0o777);
      }
    }
  };
  try {
    copy(real, root);
  } catch (err) {
    remove();
    throw err;
  }
  return {
    root,
    real,
    toScratch: (file) => path.join(root, path.relative(real, file)),
    toReal: (file) =>
      file === root || file.startsWith(root + path.sep) ? path.join(real, path.relative(root, file)) : file,
    realText: (text) => text.split(root).join(real),
    remove,
  };
}
