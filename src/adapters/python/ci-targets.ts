/**
 * What a project's own CI passes a checker: the paths after `mypy` in its check scripts (`scripts/check`:
 * `export SOURCE_FILES="httpx tests"` … `${PREFIX}mypy $SOURCE_FILES`), Makefile recipes, tox.ini commands,
 * noxfile.py sessions and GitHub workflow steps. A type check of the project runs those targets, as the
 * project does, rather than the whole folder (which holds its virtualenv, build output, docs examples).
 * Read-only and bounded: a few small files, each read once per call.
 */
import fs from "node:fs";
import path from "node:path";
import { isWithin } from "../../paths/allowlist.js";
import { parsePreCommitConfig } from "../pre-commit-config.js";

export interface CiTargets {
  /** Absolute paths inside the project, in the order the command names them. */
  targets: string[];
  /** The file that names them, relative to the project (`scripts/check`). */
  source: string;
  /** The command as written there, variables expanded (`mypy httpx tests`). */
  command: string;
  /** The checking flags it passes (`--strict`), which a type check of the project passes too. */
  flags: string[];
}

/**
 * mypy's flags that change what it reports, and take no value: a CI's are passed on. Output flags
 * (`--pretty`) would break the parser and are ours to choose; flags with values may name files.
 */
const CHECKING_FLAG =
  /^--(?:strict(?:-[a-z-]+)?|(?:no-)?(?:disallow|allow|warn)-[a-z-]+|(?:no-)?check-untyped-defs|(?:no-)?implicit-(?:optional|reexport)|ignore-missing-imports|extra-checks|local-partial-types|no-site-packages|no-silence-site-packages)$/;

/** The checking flags of a mypy command line (see CHECKING_FLAG), each once. */
export function checkingFlags(args: readonly string[]): string[] {
  return [...new Set(args.filter((a) => CHECKING_FLAG.test(a)))];
}

/** Options of mypy that take a value (`--config-file x`): the value is no target. */
const VALUE_OPTIONS = new Set([
  "--config-file",
  "--exclude",
  "--python-version",
  "--platform",
  "--cache-dir",
  "--python-executable",
  "--custom-typeshed-dir",
  "--junit-xml",
  "--shadow-file",
  "--always-true",
  "--always-false",
  "--enable-error-code",
  "--disable-error-code",
  "--html-report",
  "--txt-report",
  "--xml-report",
  "--linecount-report",
  "--any-exprs-report",
  "--cobertura-xml-report",
  "--lineprecision-report",
  "--linecoverage-report",
  "--soft-error-limit",
  "--package-root",
]);
/** Options that check something other than paths (packages, modules, a string): such a run is not used. */
const NOT_PATHS = new Set(["-p", "--package", "-m", "--module", "-c", "--command"]);
const SHELL_STOP = new Set([";", "&&", "||", "|", ">", ">>", "&", "(", ")"]);
const MAX_FILE_BYTES = 256 * 1024;

/** Shell-like words of a line: quotes grouped and removed, a `#` comment dropped, operators split off. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  const flush = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== c) {
        if (c === '"' && line[j] === "\\" && j + 1 < line.length) j++;
        word += line[j];
        j++;
      }
      i = j;
      inWord = true;
    } else if (/\s/.test(c)) flush();
    else if (c === "#" && !inWord) break;
    else if (";|&>()".includes(c)) {
      // `2>&1`: the file descriptor is part of the redirection, not a word.
      if (c === ">" && /^\d+$/.test(word)) inWord = false;
      flush();
      const doubled = (c === "&" || c === "|" || c === ">") && line[i + 1] === c;
      words.push(doubled ? c + c : c);
      if (doubled) i++;
    } else {
      word += c;
      inWord = true;
    }
  }
  flush();
  return words;
}

/** `VAR=value`, `export VAR="value"`, Makefile's `VAR = value` / `VAR := value`, from every line. */
function assignments(lines: readonly string[]): Map<string, string> {
  const vars = new Map<string, string>();
  for (const line of lines) {
    const m = /^\s*(?:export\s+)?([A-Za-z_]\w*)\s*(?:=|:=|\?=)\s*(.*)$/.exec(line);
    if (!m) continue;
    const value = (m[2] as string).trim().replace(/^"(.*)"$|^'(.*)'$/, "$1$2");
    vars.set(m[1] as string, expand(value, vars));
  }
  return vars;
}

/** `$VAR`, `${VAR}` and Makefile's `$(VAR)` replaced by their values (unknown ones left as written). */
function expand(text: string, vars: ReadonlyMap<string, string>): string {
  return text.replace(/\$(?:\{(\w+)\}|\((\w+)\)|(\w+))/g, (whole, a, b, c) => vars.get(a ?? b ?? c) ?? whole);
}

/** The words after a `mypy` (or `python -m mypy`) command in `words`, up to a shell operator. */
function mypyArgsIn(words: readonly string[]): string[] | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const isMypy = path.basename(w) === "mypy" || (w === "-m" && words[i + 1] === "mypy" && i > 0);
    if (!isMypy) continue;
    const start = w === "-m" ? i + 2 : i + 1;
    const args: string[] = [];
    for (const a of words.slice(start)) {
      if (SHELL_STOP.has(a)) break;
      args.push(a);
    }
    return args;
  }
  return undefined;
}

/** The existing paths a mypy command line checks, or undefined when it names none (or packages/modules). */
function pathTargets(args: readonly string[], projectDir: string): string[] | undefined {
  const targets: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (NOT_PATHS.has(a)) return undefined;
    if (a.startsWith("-")) {
      if (VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    // A variable left unexpanded, a tox/nox placeholder or a glob: not a path this can follow.
    if (/[$*?{}[\]]/.test(a)) continue;
    const abs = path.resolve(projectDir, a);
    if (isWithin(projectDir, abs) && fs.existsSync(abs)) targets.push(abs);
  }
  return targets.length ? targets : undefined;
}

/** Lines of a shell-like file, backslash continuations joined. */
function logicalLines(text: string): string[] {
  return text.replace(/\\\r?\n/g, " ").split(/\r?\n/);
}

/** mypy targets named in shell-like text (scripts, Makefiles, tox.ini, workflows), first command first. */
export function mypyTargetsInScript(text: string, projectDir: string): Omit<CiTargets, "source"> | undefined {
  const lines = logicalLines(text);
  const vars = assignments(lines);
  for (const line of lines) {
    if (!/mypy/.test(line)) continue;
    const words = shellWords(expand(line, vars).replace(/^\s*(?:-\s+)?(?:run:|commands\s*=)\s*/, ""));
    const args = mypyArgsIn(words);
    if (!args) continue;
    const targets = pathTargets(args, projectDir);
    if (targets) return { targets, command: ["mypy", ...args].join(" "), flags: checkingFlags(args) };
  }
  return undefined;
}

/** mypy targets in a noxfile's `session.run("mypy", "src", "tests")`. */
export function mypyTargetsInNoxfile(
  text: string,
  projectDir: string,
): Omit<CiTargets, "source"> | undefined {
  for (const m of text.matchAll(/\.run\(\s*["']mypy["']((?:\s*,\s*(?:"[^"]*"|'[^']*'))*)\s*[,)]/g)) {
    const args = [...(m[1] as string).matchAll(/"([^"]*)"|'([^']*)'/g)].map((a) => a[1] ?? a[2] ?? "");
    const targets = pathTargets(args, projectDir);
    if (targets) return { targets, command: ["mypy", ...args].join(" "), flags: checkingFlags(args) };
  }
  return undefined;
}

function readSmall(file: string, projectDir: string): string | undefined {
  try {
    const real = fs.realpathSync.native(file);
    // A script linked from outside the project is not read.
    if (!isWithin(projectDir, real)) return undefined;
    const st = fs.statSync(real);
    if (!st.isFile() || st.size > MAX_FILE_BYTES) return undefined;
    return fs.readFileSync(real, "utf8");
  } catch {
    return undefined;
  }
}

function listDir(dir: string, pattern: RegExp): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((n) => pattern.test(n))
      .sort()
      .map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

/**
 * mypy as pre-commit runs it (`.pre-commit-config.yaml`): a hook with id `mypy` (pre-commit/mirrors-mypy,
 * or a local hook whose entry is mypy) that names its paths in `args` with `pass_filenames: false`. A hook
 * that is handed the staged file names checks whatever changed: no targets of its own.
 */
export function mypyTargetsInPreCommit(
  text: string,
  projectDir: string,
): Omit<CiTargets, "source"> | undefined {
  for (const hook of parsePreCommitConfig(text)?.hooks ?? []) {
    const entry = hook.entry ? shellWords(hook.entry) : [];
    const isMypy = hook.id === "mypy" || path.basename(entry[0] ?? "") === "mypy";
    if (!isMypy || hook.passFilenames) continue;
    const args = [...entry.slice(1), ...hook.args];
    const targets = pathTargets(args, projectDir);
    if (targets) return { targets, command: ["mypy", ...args].join(" "), flags: checkingFlags(args) };
  }
  return undefined;
}

/**
 * The paths the project's CI runs mypy on, looked for in (first found wins) `scripts/*`, `Makefile`,
 * `tox.ini`, `noxfile.py`, `.pre-commit-config.yaml` and `.github/workflows/*.yml`; undefined when none names
 * existing paths.
 */
export function mypyCiTargets(projectDir: string): CiTargets | undefined {
  const shellLike = [
    ...listDir(path.join(projectDir, "scripts"), /^[\w.-]+$/),
    path.join(projectDir, "Makefile"),
    path.join(projectDir, "tox.ini"),
  ];
  type Reader = (text: string) => ReturnType<typeof mypyTargetsInScript>;
  const script: Reader = (t) => mypyTargetsInScript(t, projectDir);
  const candidates: [string, Reader][] = [
    ...shellLike.map((f): [string, Reader] => [f, script]),
    [path.join(projectDir, "noxfile.py"), (t) => mypyTargetsInNoxfile(t, projectDir)],
    [path.join(projectDir, ".pre-commit-config.yaml"), (t) => mypyTargetsInPreCommit(t, projectDir)],
    ...listDir(path.join(projectDir, ".github", "workflows"), /\.ya?ml$/).map((f): [string, Reader] => [
      f,
      script,
    ]),
  ];
  for (const [file, read] of candidates) {
    const text = readSmall(file, projectDir);
    if (text === undefined || !text.includes("mypy")) continue;
    const found = read(text);
    if (found) return { ...found, source: path.relative(projectDir, file) };
  }
  return undefined;
}
