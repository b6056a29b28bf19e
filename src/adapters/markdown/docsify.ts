/**
 * docsify sites (https://docsify.js.org): a folder whose `index.html` sets `window.$docsify` serves its
 * Markdown files, and resolves a relative link from the site's folder, not the linking file's (unless
 * the site sets `relativePath: true`). lostisland/faraday's `docs/middleware/index.md` links
 * `adapters/index.md`, meaning `docs/adapters/index.md`. A link that resolves neither way is broken.
 */
import fs from "node:fs";
import path from "node:path";
import { isWithin } from "../../paths/allowlist.js";

const MAX_INDEX_BYTES = 256 * 1024;

/** The site's settings, as far as link resolution goes: `relativePath: true` keeps links file-relative. */
export function docsifySettings(html: string): { site: boolean; relativePath: boolean } {
  const site = /window\.\$docsify\s*=/.test(html);
  return { site, relativePath: site && /\brelativePath\s*:\s*true\b/.test(html) };
}

/**
 * Where a docsify site looks for a link's page (relative, or from `/`): from the site's folder, the path as written, an
 * extensionless route's `.md` file (`guide/json` → `guide/json.md`), a folder's `README.md`.
 */
export function docsifyTargets(site: string, filePath: string): string[] {
  // `/guide.md` is the site's own root too.
  const at = path.join(site, filePath);
  if (filePath.endsWith("/") || filePath === "") return [path.join(at, "README.md")];
  return path.extname(filePath) ? [at] : [at, `${at}.md`, path.join(at, "README.md")];
}

/** Finds the docsify site folders above Markdown files, each folder's answer remembered for one run. */
export class DocsifySites {
  private readonly known = new Map<string, boolean>();

  constructor(private readonly top: string) {}

  /** The folder of the docsify site that serves `file` (between its folder and `top`), if any. */
  siteOf(file: string): string | undefined {
    for (let dir = path.dirname(file); isWithin(this.top, dir); dir = path.dirname(dir)) {
      if (this.isSite(dir)) return dir;
      if (dir === this.top || path.dirname(dir) === dir) return undefined;
    }
    return undefined;
  }

  private isSite(dir: string): boolean {
    let answer = this.known.get(dir);
    if (answer === undefined) {
      answer = readSite(path.join(dir, "index.html"));
      this.known.set(dir, answer);
    }
    return answer;
  }
}

/** Whether `index` is a docsify page that resolves links from its folder: a regular file (no link), bounded. */
function readSite(index: string): boolean {
  try {
    const st = fs.lstatSync(index);
    if (!st.isFile() || st.size > MAX_INDEX_BYTES) return false;
    const settings = docsifySettings(fs.readFileSync(index, "utf8"));
    return settings.site && !settings.relativePath;
  } catch {
    return false;
  }
}
