/**
 * A fill step that succeeded (a `cargo fetch`), remembered between processes with the probes
 * (probe-memo.ts): under the step's key (its command, the project, the manifests) and the state of the caches
 * it filled. That state is each cache folder's, its folders' and theirs' (device, inode, modification time):
 * cargo unpacks a crate as a folder two levels down (`registry/src/<index>/<crate>`), so a crate added or
 * removed there since (a cache cleaned, another project's fetch) makes a new state, and the step runs again.
 */
import fs from "node:fs";
import path from "node:path";
import { recallProbe, rememberProbe } from "../probe-memo.js";

/** Past this many folders (git checkouts of many repositories) nothing is remembered. */
const MAX_ENTRIES = 4096;

/** The state of the cache folders, or undefined when it cannot be told (too many folders). */
export function cacheState(dirs: readonly string[]): string | undefined {
  const parts: string[] = [];
  const visit = (dir: string, depth: number): boolean => {
    const st = fs.statSync(dir, { bigint: true, throwIfNoEntry: false });
    parts.push(st ? `${dir}:${st.dev}:${st.ino}:${st.mtimeNs}` : `${dir}:-`);
    if (parts.length > MAX_ENTRIES) return false;
    if (!st?.isDirectory() || depth === 2) return true;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return true;
    }
    const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    return folders.sort().every((name) => visit(path.join(dir, name), depth + 1));
  };
  for (const dir of dirs) if (!visit(dir, 0)) return undefined;
  return parts.join("|");
}

const probeKey = (key: string, state: string) => ["fill-step", key, state];

/** Did this step succeed before, with the caches as they are now? */
export function fillRemembered(key: string, caches: readonly string[]): boolean {
  const state = cacheState(caches);
  return state !== undefined && recallProbe<boolean>(probeKey(key, state)) === true;
}

/** Remembers a step that succeeded, with the caches as it left them. */
export function rememberFill(key: string, caches: readonly string[]): void {
  const state = cacheState(caches);
  if (state !== undefined) rememberProbe(probeKey(key, state), true);
}
