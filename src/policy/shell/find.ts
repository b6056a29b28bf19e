/**
 * `find`'s command line as find reads it: the starting points, and whether its expression can match every
 * file under them ("broad": no name or path test narrows it, or one is negated, or a branch of `-o` has
 * none) or only files whose names match its `-name` patterns. A broad `find . -delete` deletes the tree, as
 * `rm -r .` would; `find . -name '*.pyc' -delete` deletes what its pattern matches. Pure.
 */

/** The tests of a file's name or path; each takes a pattern and narrows a match to what it matches. */
const NAME_TESTS = [
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-wholename",
  "-iwholename",
  "-regex",
  "-iregex",
  "-lname",
  "-ilname",
];
/** Options before the starting points, and expression words that take a value. */
const TAKES_VALUE = new Set([
  ...NAME_TESTS,
  "-newer",
  "-anewer",
  "-cnewer",
  "-mtime",
  "-mmin",
  "-atime",
  "-amin",
  "-ctime",
  "-cmin",
  "-size",
  "-type",
  "-xtype",
  "-user",
  "-group",
  "-uid",
  "-gid",
  "-perm",
  "-links",
  "-inum",
  "-samefile",
  "-maxdepth",
  "-mindepth",
  "-fstype",
  "-regextype",
  "-printf",
  "-fprintf",
  "-fprint",
  "-fprint0",
  "-fls",
  "-used",
  "-context",
  "-newerXY",
  "-D",
  "-O",
]);
/** Tests that narrow a match to certain names or paths (or certain files: -inum, -samefile, -empty). */
const NARROWING = new Set([...NAME_TESTS, "-inum", "-samefile", "-empty"]);

export interface FindCommand {
  /** The starting points (default `.`). */
  starts: string[];
  /** Its expression can match every file under the starting points. */
  broad: boolean;
  /** The `-name`/`-iname` patterns a match must have (when not broad and they are all it tests). */
  names?: string[];
  /** Index in argv where the expression starts. */
  expressionAt: number;
}

/**
 * A name or path pattern that can match any name: only wildcards, classes and dots (`*`, `.*`, `[a-z]*`,
 * `?*`), the way a deletion of "everything" is spelled.
 */
export function broadGlob(pattern: string): boolean {
  if (!/[*?[]/.test(pattern)) return false;
  const literal = pattern.replace(/\[[^\]]*\]/g, "").replace(/[*?]/g, "");
  return /^[./]*$/.test(literal);
}

/** Reads a find command line. */
export function readFind(argv: string[]): FindCommand {
  let i = 1;
  // Options before the starting points: -H -L -P -D debugopts -Olevel
  while (i < argv.length && /^-[HLP]$|^-D$|^-O\d*$/.test(argv[i] as string)) i += argv[i] === "-D" ? 2 : 1;
  const starts: string[] = [];
  while (i < argv.length && !/^[-(!]/.test(argv[i] as string)) starts.push(argv[i++] as string);
  const expressionAt = i;
  // Branches of -o / -or / , : each must narrow for the whole to narrow.
  const branches: { narrowed: boolean; names: string[] }[] = [{ narrowed: false, names: [] }];
  let negated = false;
  for (; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "-o" || a === "-or" || a === ",") {
      branches.push({ narrowed: false, names: [] });
      continue;
    }
    if (a === "!" || a === "-not") {
      negated = true;
      continue;
    }
    if (["-exec", "-execdir", "-ok", "-okdir"].includes(a)) {
      while (i < argv.length && argv[i] !== ";" && argv[i] !== "+") i++;
      negated = false;
      continue;
    }
    const branch = branches.at(-1) as { narrowed: boolean; names: string[] };
    if (NARROWING.has(a) && !negated) {
      const value = argv[i + 1] ?? "";
      const pattern = a === "-regex" || a === "-iregex" ? "" : value;
      const narrows =
        a === "-inum" || a === "-samefile" || a === "-empty" || (pattern !== "" && !broadGlob(pattern));
      if (a === "-regex" || a === "-iregex") branch.narrowed ||= !/^\.\*$|^\.\*\/?\.\*$/.test(value);
      else if (narrows) branch.narrowed = true;
      if (narrows && (a === "-name" || a === "-iname")) branch.names.push(value);
    }
    negated = false;
    if (TAKES_VALUE.has(a)) i++;
  }
  const broad = branches.some((b) => !b.narrowed);
  const names = branches.flatMap((b) => b.names);
  const onlyNames = !broad && branches.every((b) => b.names.length > 0);
  return {
    starts: starts.length ? starts : ["."],
    broad,
    ...(onlyNames ? { names } : {}),
    expressionAt,
  };
}

/** A bash glob of one path component as a RegExp (`*` and `?` never match a leading dot, as without dotglob). */
export function globRegExp(pattern: string, ignoreCase = false): RegExp {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "\\" && i + 1 < pattern.length) re += escape(pattern[++i] as string);
    else if (c === "*") re += i === 0 ? "(?!\\.)[^/]*" : "[^/]*";
    else if (c === "?") re += i === 0 ? "(?!\\.)[^/]" : "[^/]";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end === -1) re += "\\[";
      else {
        let body = pattern.slice(i + 1, end);
        const not = body.startsWith("!") || body.startsWith("^");
        if (not) body = body.slice(1);
        re += `[${not ? "^" : ""}${body.replace(/\\/g, "\\\\").replace(/\]/g, "\\]")}]`;
        i = end;
      }
    } else re += escape(c);
  }
  return new RegExp(`^${re}$`, ignoreCase ? "i" : "");
}

function escape(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
