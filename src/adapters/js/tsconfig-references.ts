/**
 * A tsconfig's project references, as `tsc -b` follows them: a solution-style root (`"files": [],
 * "references": [...]`) checks nothing itself, and `tsc -p` of it passed while `tsc -b` found the errors of
 * each referenced project. Read here (comments and trailing commas allowed, as tsc reads them) so that the
 * plan (which tsconfigs a check runs, and which nested tsconfigs no run reaches) and the run agree.
 */
import fs from "node:fs";
import path from "node:path";

/** JSON with comments and trailing commas as plain JSON: both removed outside strings. Pure. */
export function stripJsonc(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
      out += " ";
    } else out += c;
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

/** The config file a reference names: a folder means its tsconfig.json, as tsc resolves it. */
function referencedConfig(from: string, ref: string): string {
  const resolved = path.resolve(path.dirname(from), ref);
  return fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory()
    ? path.join(resolved, "tsconfig.json")
    : resolved;
}

/** The `references` of one tsconfig (absolute config files); none when it cannot be read. */
export function directReferences(configFile: string): string[] {
  let json: unknown;
  try {
    json = JSON.parse(stripJsonc(fs.readFileSync(configFile, "utf8")));
  } catch {
    return [];
  }
  const refs = (json as { references?: unknown } | null)?.references;
  if (!Array.isArray(refs)) return [];
  return refs
    .map((r) => (r as { path?: unknown } | null)?.path)
    .filter((p): p is string => typeof p === "string")
    .map((p) => referencedConfig(configFile, p));
}

/**
 * Every tsconfig `configFile` references, directly or through the referenced ones, each once, in the order
 * `tsc -b` meets them (a reference cycle, which tsc reports, is walked once), those that exist; `configFile`
 * itself excluded.
 */
export function referencedTsconfigs(configFile: string): string[] {
  const seen = new Set([path.resolve(configFile)]);
  const out: string[] = [];
  const visit = (file: string) => {
    for (const ref of directReferences(file)) {
      // A reference to no file is the referencing run's own error (TS6053), not a run of its own.
      if (seen.has(ref) || !fs.statSync(ref, { throwIfNoEntry: false })?.isFile()) continue;
      seen.add(ref);
      out.push(ref);
      visit(ref);
    }
  };
  visit(path.resolve(configFile));
  return out;
}

/** The folders of the tsconfigs a run of `configFile` checks: its own and its references'. */
function foldersChecked(configFile: string): Set<string> {
  return new Set([configFile, ...referencedTsconfigs(configFile)].map((f) => path.dirname(f)));
}

/**
 * Of the `candidates` (folders holding a tsconfig.json), those that need a tsc run of their own: each that
 * no run of `checked` (the tsconfigs already run) reaches through its references, and that no other kept
 * candidate reaches (a package referenced by an app is checked by the app's run). In a reference cycle the
 * first one is kept. In the order given.
 */
export function unreachedTsconfigDirs(checked: readonly string[], candidates: readonly string[]): string[] {
  const reached = new Set(checked.flatMap((c) => [...foldersChecked(c)]));
  const closure = new Map(candidates.map((d) => [d, foldersChecked(path.join(d, "tsconfig.json"))]));
  const kept: string[] = [];
  let left = candidates.filter((d) => !reached.has(d));
  while (left.length) {
    const tops = left.filter((d) => !left.some((o) => o !== d && closure.get(o)?.has(d)));
    for (const d of tops.length ? tops : left.slice(0, 1)) {
      kept.push(d);
      for (const f of closure.get(d) ?? []) reached.add(f);
    }
    left = left.filter((d) => !reached.has(d));
  }
  return candidates.filter((d) => kept.includes(d));
}
