/**
 * What a virtualenv's site-packages puts on the import path besides its own packages: each `.pth` line that
 * is a path (an editable install: `pip install -e ../a` writes `__editable__.a-0.1.pth` holding `/abs/a/src`),
 * and the folders a setuptools editable finder maps (`__editable___a_0_1_finder.py`, its `MAPPING`). A type
 * checker reads the modules there as the project's own, so they are part of a whole result's key
 * (whole-closure.ts pythonClosure); site-packages itself is keyed only by its names.
 */
import fs from "node:fs";
import path from "node:path";

/** A `.pth` or finder file larger than this is not read (a real one holds a few lines). */
const MAX_BYTES = 64 * 1024;

/** Files of a site-packages folder that can name folders beyond it. */
export const SITE_PATH_FILE = /\.pth$|^__editable___.*_finder\.py$/;

/**
 * The paths a `.pth` file adds, as Python's site.addpackage reads it: a line that is blank, a comment or
 * starts with `import` is not a path; the rest, right-stripped, is relative to the site-packages folder.
 */
export function pthPaths(site: string, text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l !== "" && !l.startsWith("#") && !/^import[ \t]/.test(l))
    .map((l) => path.resolve(site, l));
}

/**
 * The paths an editable finder's `MAPPING = {'pkg': '/abs/src/pkg', ...}` names (a package folder or a
 * module file each); nothing when it has none.
 */
export function finderPaths(text: string): string[] {
  const mapping = /^MAPPING\b[^=\n]*=\s*\{([^}]*)\}/m.exec(text)?.[1];
  if (!mapping) return [];
  const quoted = [...mapping.matchAll(/(['"])((?:\\.|(?!\1).)*)\1/g)].map((m) => m[2] as string);
  // Keys and values alternate: 'pkg': '/path'.
  return quoted.filter((_, i) => i % 2 === 1).filter((p) => path.isAbsolute(p));
}

/**
 * The folders and files the `.pth` and finder files of `site` name, and those files (their content decided
 * them). Read from the file system: a file that is gone or too large names nothing.
 */
export function sitePathsOf(site: string, names: readonly string[]): { paths: string[]; read: string[] } {
  const paths: string[] = [];
  const read: string[] = [];
  for (const name of names) {
    if (!SITE_PATH_FILE.test(name)) continue;
    const file = path.join(site, name);
    let text: string;
    try {
      if (fs.statSync(file).size > MAX_BYTES) continue;
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    read.push(file);
    paths.push(...(name.endsWith(".pth") ? pthPaths(site, text) : finderPaths(text)));
  }
  return { paths, read };
}
