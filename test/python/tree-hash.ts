/** A hash of every path and file content under a folder: equal hashes mean nothing was written. */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export function treeHash(root: string): string {
  const h = createHash("sha256");
  const walk = (dir: string) => {
    for (const e of fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      h.update(`${path.relative(root, p)}\0`);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) h.update(fs.readFileSync(p));
    }
  };
  walk(root);
  return h.digest("hex");
}
