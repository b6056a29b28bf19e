/**
 * What identifies the server's own code in every cache key: a hash of the content of its compiled
 * files and of what it ships beside them (its Ruby, data and policies), so a rebuilt or upgraded server
 * never reads entries an older parser wrote, while the same build on another machine (CI, a teammate)
 * shares them. `npm run build` writes it to dist/build-id.json
 * (scripts/write-build-id.mjs), so a start reads one small file instead of hashing ~300; without that
 * file (the sources under a test runner) it is computed on first use.
 */
import fs from "node:fs";
import path from "node:path";
import { CODE_DIR } from "../package-root.js";
import { sha256 } from "./hash.js";

/** The file the build writes, in the compiled code's folder; not part of the hash it holds. */
export const BUILD_ID_FILE = "build-id.json";

let id: string | undefined;

function filesUnder(dir: string, out: string[]): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) filesUnder(abs, out);
    else if (e.isFile() && /\.(?:js|json)$/.test(e.name)) out.push(abs);
  }
  return out;
}

/**
 * What the package runs besides its compiled code, beside it at the package's top: the Ruby worker and
 * plugins (RuboCop's reports, the test runner's), the shipped data (ruff's rules) and policies. An upgrade
 * that changed only one of them must not find a daemon or a cache entry of the older one.
 */
const SHIPPED_BESIDE_CODE = ["ruby", "data", "policy"];

function everyFileUnder(dir: string, out: string[]): string[] {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) everyFileUnder(abs, out);
    else if (e.isFile()) out.push(abs);
  }
  return out;
}

/**
 * The hash of the .js and .json files under `codeDir` and of every file of the folders shipped beside it
 * (paths and contents), build-id.json left out.
 */
export function computeBuildId(codeDir: string): string {
  const own = path.join(codeDir, BUILD_ID_FILE);
  const root = path.dirname(codeDir);
  const files = [
    ...filesUnder(codeDir, []).filter((file) => file !== own),
    ...SHIPPED_BESIDE_CODE.flatMap((dir) => everyFileUnder(path.join(root, dir), [])),
  ];
  const parts = files.map((file) => `${path.relative(codeDir, file)}:${sha256(fs.readFileSync(file))}`);
  return sha256(parts.join("\n")).slice(0, 32);
}

function recorded(codeDir: string): string | undefined {
  try {
    const value = (JSON.parse(fs.readFileSync(path.join(codeDir, BUILD_ID_FILE), "utf8")) as { id?: unknown })
      .id;
    return typeof value === "string" && /^[0-9a-f]{32}$/.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The build id of the running code (dist/, or src/ under a test runner). */
/**
 * Forgets the id: for the command line's snapshot, whose build runs a check (src/snapshot-warm-up.ts) before
 * `npm run build` records this build's id; each process from the snapshot reads it again.
 */
export function forgetBuildId(): void {
  id = undefined;
}

export function buildId(): string {
  id ??= recorded(CODE_DIR) ?? computeBuildId(CODE_DIR);
  return id;
}
