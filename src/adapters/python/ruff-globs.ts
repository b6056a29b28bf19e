/**
 * Ruff's file patterns (exclude, extend-exclude, per-file-ignores, per-file-target-version), matched as ruff
 * matches them: a pattern is made absolute from the folder of the config that sets it (so a trailing `/`
 * goes, and `..` is resolved), and compiled as a glob whose `*` and `?` also match `/` (the Rust globset
 * crate's default, which ruff keeps). `**` between separators matches any number of folders, none included.
 */
import path from "node:path";

/** One character class `[...]` from `glob[start]` (the `[`): its regex text and where it ends, or undefined. */
function charClass(glob: string, start: number): { re: string; end: number } | undefined {
  let i = start + 1;
  let negated = false;
  if (glob[i] === "!" || glob[i] === "^") {
    negated = true;
    i++;
  }
  let body = "";
  // A `]` first in the class is a member, not its end.
  if (glob[i] === "]") {
    body += "\\]";
    i++;
  }
  for (; i < glob.length && glob[i] !== "]"; i++) {
    const c = glob[i] as string;
    body += c === "\\" || c === "^" || c === "[" ? `\\${c}` : c;
  }
  if (i >= glob.length) return undefined;
  return { re: `[${negated ? "^" : ""}${body}]`, end: i };
}

const escapeRe = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** The regex source of a glob with globset's defaults (`*` crosses `/`, `\` escapes, `{a,b}` alternates). */
export function globSource(glob: string): string {
  let out = "";
  let inAlternates = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "\\" && i + 1 < glob.length) {
      out += escapeRe(glob[++i] as string);
    } else if (c === "*" && glob[i + 1] === "*") {
      const atStart = i === 0 || glob[i - 1] === "/";
      const atEnd = i + 2 === glob.length || glob[i + 2] === "/";
      if (atStart && atEnd && i + 2 < glob.length) {
        // `**/x` and `a/**/x`: any number of folders, none included (the `/` before is already out).
        out += "(?:.*/)?";
        i++;
      } else out += ".*";
      i++;
    } else if (c === "*") out += ".*";
    else if (c === "?") out += ".";
    else if (c === "[") {
      const cls = charClass(glob, i);
      if (cls) {
        out += cls.re;
        i = cls.end;
      } else out += "\\[";
    } else if (c === "{" && !inAlternates) {
      inAlternates = true;
      out += "(?:";
    } else if (c === "}" && inAlternates) {
      inAlternates = false;
      out += ")";
    } else if (c === "," && inAlternates) out += "|";
    else out += escapeRe(c);
  }
  if (inAlternates) out += ")";
  return out;
}

const compiled = new Map<string, RegExp>();
const MAX_COMPILED = 10_000;

/** Whether `text` matches `glob` as a whole (compiled once per glob). */
export function globMatches(glob: string, text: string): boolean {
  let re = compiled.get(glob);
  if (!re) {
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    re = new RegExp(`^${globSource(glob)}$`, "s");
    compiled.set(glob, re);
  }
  return re.test(text);
}

/** `text` as a glob that matches it literally: its glob characters escaped. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]{}\\]/g, "\\$&");
}

/**
 * A pattern made absolute from `baseDir` as ruff does (lexically: `.`, `..` and a trailing `/` go). The folder
 * is a literal path, not a glob: a project under `/tmp/[x]` or `/tmp/a{b,c}` matches itself only.
 */
export function anchoredPattern(pattern: string, baseDir: string): string {
  if (path.isAbsolute(pattern)) return path.resolve(pattern);
  let base = path.resolve(baseDir);
  let rest = path.normalize(pattern);
  // Leading `..` climb the literal folder; what remains is the pattern's own.
  while (rest === ".." || rest.startsWith("../")) {
    base = path.dirname(base);
    rest = rest.slice(3);
  }
  rest = rest.replace(/\/+$/, "");
  if (rest === "" || rest === ".") return escapeGlob(base);
  return `${escapeGlob(base)}${base.endsWith("/") ? "" : "/"}${rest}`;
}

/**
 * The globs an exclude pattern from a config in `baseDir` stands for: its absolute form, and the pattern
 * itself when it has no `/` (matched against a file's name too).
 */
export function excludeGlobs(pattern: string, baseDir: string): string[] {
  const absolute = anchoredPattern(pattern, baseDir);
  return pattern.includes("/") ? [absolute] : [absolute, pattern];
}

/** Whether a path is excluded by these globs: each is tried on the whole absolute path and on its name. */
export function excludedBy(globs: readonly string[], abs: string): boolean {
  if (!globs.length) return false;
  const name = path.basename(abs);
  return globs.some((g) => globMatches(g, abs) || globMatches(g, name));
}

/** A per-file pattern (per-file-ignores, per-file-target-version) anchored at its config's folder. */
export interface PerFilePattern {
  /** The pattern as written (a leading `!` removed), matched against a file's name. */
  name: string;
  /** Its absolute form, matched against a file's absolute path. */
  absolute: string;
  negated: boolean;
}

export function perFilePattern(pattern: string, baseDir: string): PerFilePattern {
  const negated = pattern.startsWith("!");
  const name = negated ? pattern.slice(1) : pattern;
  return { name, absolute: anchoredPattern(name, baseDir), negated };
}

/** Whether a per-file pattern applies to `file` (absolute): a negated one applies to the files it does not match. */
export function perFileApplies(p: PerFilePattern, file: string): boolean {
  const matched = globMatches(p.name, path.basename(file)) || globMatches(p.absolute, file);
  return p.negated ? !matched : matched;
}
