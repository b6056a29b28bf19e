/** A fingerprint of a whole directory tree, to assert that a call wrote, created and deleted nothing. */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * Every entry under `dir` (relative path → type, mode and content hash or link target), sorted. Two equal
 * results mean no file was written, created, deleted, re-moded or replaced by a link.
 */
export function treeHash(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const abs = path.join(d, name);
      const rel = path.relative(dir, abs);
      const st = fs.lstatSync(abs);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out[rel] = `link ${fs.readlinkSync(abs)}`;
      else if (st.isDirectory()) {
        out[rel] = `dir ${mode}`;
        walk(abs);
      } else out[rel] = `file ${mode} ${createHash("sha256").update(fs.readFileSync(abs)).digest("hex")}`;
    }
  };
  walk(dir);
  return out;
}
