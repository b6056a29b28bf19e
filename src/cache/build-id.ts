/**
 * What identifies the server's own code in every cache key: a hash of the content of its compiled
 * files, so a rebuilt or upgraded server never reads entries an older parser wrote, while the same build
 * on another machine (CI, a teammate) shares them. Computed once, on first use (about 300 small files).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sha256 } from "./hash.js";

let id: string | undefined;

function filesUnder(dir: string, out: string[]): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) filesUnder(abs, out);
    else if (e.isFile() && /\.(?:js|json)$/.test(e.name)) out.push(abs);
  }
  return out;
}

export function buildId(): string {
  if (id) return id;
  // This file is <package>/dist/cache/build-id.js (or src/cache/build-id.ts under a test runner).
  const codeDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const parts: string[] = [];
  for (const file of filesUnder(codeDir, []))
    parts.push(`${path.relative(codeDir, file)}:${sha256(fs.readFileSync(file))}`);
  id = sha256(parts.join("\n")).slice(0, 32);
  return id;
}
