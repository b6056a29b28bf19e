/**
 * The per-user scratch folder: `<tmpdir>/mcq-<uid>`, owner-only (0700). Server-made copies (inline source,
 * dry runs), cargo's target dir and daemon state live under it, never loose in a shared $TMPDIR where another
 * local user could plant a `build.rs` or a path dependency beside them. It is the one temp folder a sandboxed
 * tool sees besides its private /tmp.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

let checked: string | undefined;

/** The scratch folder, created and checked (ours, a real folder, 0700) on first use; throws when unusable. */
export function scratchRoot(): string {
  const dir = path.join(os.tmpdir(), `mcq-${process.getuid?.() ?? "user"}`);
  if (checked === dir && fs.existsSync(dir)) return dir;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory())
    throw new Error(`scratch folder ${dir} is not a folder (a link?): refusing to use it`);
  if (typeof process.getuid === "function" && st.uid !== process.getuid())
    throw new Error(`scratch folder ${dir} belongs to another user: refusing to use it`);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  checked = dir;
  return dir;
}

/** A new private folder under the scratch root (like fs.mkdtempSync). */
export function makeScratchDir(prefix: string): string {
  return fs.mkdtempSync(path.join(scratchRoot(), prefix));
}
