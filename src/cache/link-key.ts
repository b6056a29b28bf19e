/**
 * What a symbolic link stands for in a key. The tools read through a link (ruff and ty check a linked
 * `u.py` as the file it points to), so its key is its target's content: before, a link had no hash at all
 * and an edit of its target kept the old verdict. The server reads a target only inside the allowed roots
 * (its own writes never follow a link; reading one to hash it is safe); a link that leads outside them, or
 * nowhere, is keyed by its text and what it is, so a retarget is a miss and no content outside is read.
 * A link to a folder there is keyed by the folder's contents (ty resolves `import pkg.a` through a linked
 * `pkg`), each file as FileHashes keys it.
 */
import fs from "node:fs";
import { isWithin } from "../paths/allowlist.js";

/**
 * The key part of the link `link`: `hashTarget(real)` prefixed with `→` when its real location is a file
 * inside `roots`, `hashDir(real)` prefixed with `⇒` when it is a folder there (its contents, as any
 * folder's: a linked package whose target's files change, or a target replaced, kept the verdict while a
 * folder link was keyed by its text), else its text with a marker (`outside`, `dangling`, `not a file`).
 */
export function linkKey(
  link: string,
  roots: readonly string[],
  hashTarget: (real: string) => string | undefined,
  hashDir?: (real: string) => string | undefined,
): string {
  let text: string;
  try {
    text = fs.readlinkSync(link);
  } catch {
    return "link:unreadable";
  }
  let real: string;
  try {
    real = fs.realpathSync.native(link);
  } catch {
    return `link:dangling:${text}`;
  }
  if (!roots.some((r) => isWithin(r, real))) return `link:outside:${text}`;
  const hash = hashTarget(real);
  if (hash !== undefined) return `→${hash}`;
  const dir = hashDir?.(real);
  return dir === undefined ? `link:not a file:${text}` : `⇒${dir}`;
}
