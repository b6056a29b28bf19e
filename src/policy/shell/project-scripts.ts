/**
 * A command that runs a file or a named script of the project → the shell text it runs, read from disk
 * (project-files.ts: inside the allowed roots, size-capped): a script given to a shell or `source`, a file
 * run by its path (`./ship.sh`: by its `#!` line), package.json scripts (`npm run`, `yarn X`, `pnpm X`, an
 * install's lifecycle scripts), Makefile recipes (`make X`) and justfile recipes (`just X`). The walk judges
 * that text as if it had been proposed. A target that cannot be read or understood is a reason (undecided),
 * never nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { justRun, justScripts } from "./just-recipes.js";
import { makeRun, parseMakefile, recipesFor, type Makefile } from "./make-recipes.js";
import { packageRun, scriptsOf } from "./package-scripts.js";
import type { ProjectReader } from "./project-files.js";

/** Scripts that run scripts, followed this deep; deeper is undecided. */
export const MAX_SCRIPT_DEPTH = 8;

/** One text to walk: where it runs, the file it came from (for the chain), its positional parameters. */
export interface ScriptRun {
  text: string;
  label: string;
  cwd: string;
  file: string;
  positional?: string[];
}

export type Runs = { runs: ScriptRun[] } | { why: string };

const SHELL_SHEBANG =
  /^#!\s*(?:\S*\/)?(?:env\s+(?:-S\s+)?)?(sh|bash|dash|zsh|ksh|ash|mksh|yash|busybox\s+sh)(\s|$)/;
const ANY_SHEBANG = /^#!\s*(\S+)(?:\s+(?:-S\s+)?(\S+))?/;

const at = (cwd: string | undefined, file: string) =>
  path.isAbsolute(file) ? path.resolve(file) : cwd === undefined ? undefined : path.resolve(cwd, file);

/** A script file given to a shell or `source` (shell text whatever its `#!`). */
export function shellScript(
  read: ProjectReader,
  cwd: string | undefined,
  file: string,
  label: string,
  positional: string[],
): Runs {
  const abs = at(cwd, file);
  if (abs === undefined) return { why: `${label} runs ${file} in a folder only known when the line runs` };
  const got = read(abs);
  if ("why" in got) return { why: `the script ${got.why}` };
  return { runs: [{ text: got.text, label, cwd: cwd ?? path.dirname(abs), file: got.file, positional }] };
}

/** What a file run by its path is: shell text to walk, or inline code for an interpreter (by its `#!`). */
export type Executed = Runs | { interpreter: string; code: string; file: string };

/** A program run by its path (`./ship.sh`, `scripts/x`), when that path is a file of the project. */
export function executedFile(
  read: ProjectReader,
  cwd: string | undefined,
  program: string,
  argv: string[],
): Executed {
  const abs = at(cwd, program);
  if (abs === undefined) return { why: `it runs ${program} in a folder only known when the line runs` };
  const got = read(abs);
  if ("why" in got) return { why: `the program ${got.why}` };
  const first = got.text.split("\n", 1)[0] ?? "";
  // No `#!`: the shell that runs it reads it as a shell script (execve fails, bash and sh run it themselves).
  if (!first.startsWith("#!") || SHELL_SHEBANG.test(first))
    return {
      runs: [{ text: got.text, label: program, cwd: cwd as string, file: got.file, positional: argv }],
    };
  const m = ANY_SHEBANG.exec(first);
  const interpreter = path.basename((m?.[1]?.endsWith("/env") ? m[2] : m?.[1]) ?? "");
  return { interpreter, code: got.text, file: got.file };
}

/** The first of the files that is there (on disk or written earlier in the line). */
function present(read: ProjectReader, files: string[]): string | undefined {
  return files.find((f) => fs.existsSync(f) || !("missing" in read(f)));
}

/** The nearest folder up from `dir` holding one of `names`, and that file. */
function nearest(read: ProjectReader, dir: string, names: string[]): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    const f = present(
      read,
      names.map((n) => path.join(d, n)),
    );
    if (f || path.dirname(d) === d) return f;
  }
}

/** package.json scripts an npm/yarn/pnpm/bun command runs; undefined when it runs none. */
export function packageScripts(
  read: ProjectReader,
  cwd: string | undefined,
  argv: string[],
  dynamic: boolean[],
): Runs | undefined {
  const run = packageRun(argv, dynamic);
  if (run === undefined) return undefined;
  const tool = path.basename(argv[0] as string);
  if ("why" in run) return run;
  const dir = run.dir === undefined ? cwd : at(cwd, run.dir);
  if (dir === undefined)
    return { why: `${tool} runs scripts of a package.json in a folder only known when the line runs` };
  const file =
    run.dir === undefined
      ? nearest(read, dir, ["package.json"])
      : present(read, [path.join(dir, "package.json")]);
  if (file === undefined) return undefined; // no package.json: the manager fails, nothing runs
  const got = read(file);
  if ("why" in got) return { why: `${tool} runs scripts of a package.json that is not read: ${got.why}` };
  const scripts = scriptsOf(got.text);
  if ("why" in scripts) return { why: `${tool} runs scripts of ${file}, but ${scripts.why}` };
  // bun runs a file or a binary when the name is not a script: that is the interpreter's business.
  if (tool === "bun" && run.main !== undefined && !Object.hasOwn(scripts, run.main)) return undefined;
  const runs: ScriptRun[] = [];
  for (const name of run.names) {
    if (!Object.hasOwn(scripts, name)) continue;
    const text = name === run.main && run.args ? `${scripts[name]} ${run.args}` : (scripts[name] as string);
    runs.push({
      text,
      label: `${tool} run ${name}`,
      cwd: path.dirname(got.file),
      file: `${got.file}#${name}`,
    });
  }
  return { runs };
}

const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"];

/** The recipes `make` runs. */
export function makeScripts(
  read: ProjectReader,
  cwd: string | undefined,
  argv: string[],
  dynamic: boolean[],
): Runs {
  const run = makeRun(argv, dynamic);
  if ("why" in run) return run;
  let dir = cwd;
  for (const d of run.dirs) dir = at(dir, d);
  if (dir === undefined) return { why: "make runs in a folder only known when the line runs" };
  const file = present(
    read,
    run.file ? [at(dir, run.file) as string] : MAKEFILES.map((f) => path.join(dir, f)),
  );
  if (file === undefined) return { runs: [] }; // no Makefile: make fails (or runs a built-in rule on a source file)
  const got = read(file);
  if ("why" in got) return { why: `make runs recipes of a makefile that is not read: ${got.why}` };
  const parsed = parseMakefile(got.text);
  const included = withIncludes(read, dir, parsed, 0);
  const recipes = recipesFor(included, run);
  if ("why" in recipes) return { why: `make runs recipes of ${file}, but ${recipes.why}` };
  return {
    runs: recipes.scripts.map((text) => ({
      text,
      label: `make ${run.targets.join(" ")}`.trim(),
      cwd: dir,
      file: `${got.file}#${run.targets.join(" ")}`,
    })),
  };
}

/** The included makefiles' rules and variables added where they are read (at most 4 levels); else `why` says. */
function withIncludes(read: ProjectReader, dir: string, file: Makefile, depth: number): Makefile {
  if (file.includes.length === 0 || file.why) return file;
  const fail = (why: string): Makefile => ({ ...file, why });
  if (depth > 4) return fail("its includes nest too deep");
  const out: Makefile = {
    ...file,
    rules: [],
    vars: new Map(file.vars),
    shells: [...file.shells],
    includes: [],
  };
  let taken = 0;
  for (const inc of file.includes) {
    out.rules.push(...file.rules.slice(taken, inc.at));
    taken = Math.max(taken, inc.at);
    if (/[$*?[]/.test(inc.names)) return fail(`it includes ${inc.names}, only known when make runs`);
    for (const name of inc.names.split(/\s+/).filter(Boolean)) {
      const got = read(path.resolve(dir, name));
      if ("why" in got) {
        if (inc.optional && got.missing) continue;
        return fail(`it includes a makefile that is not read: ${got.why}`);
      }
      const inner = withIncludes(read, dir, parseMakefile(got.text), depth + 1);
      if (inner.why) return fail(inner.why);
      out.rules.push(...inner.rules);
      for (const [k, v] of inner.vars) out.vars.set(k, v);
      out.shells.push(...inner.shells);
      out.oneShell ||= inner.oneShell;
    }
  }
  out.rules.push(...file.rules.slice(taken));
  return out;
}

const JUSTFILES = ["justfile", "Justfile", ".justfile", "JUSTFILE"];

/** The recipes `just` runs; undefined when it runs none (`just --list`). */
export function justfileScripts(
  read: ProjectReader,
  cwd: string | undefined,
  argv: string[],
  dynamic: boolean[],
): Runs | undefined {
  const run = justRun(argv, dynamic);
  if (run === undefined || "why" in run) return run;
  if (cwd === undefined) return { why: "just runs in a folder only known when the line runs" };
  const file = run.file ? present(read, [at(cwd, run.file) as string]) : nearest(read, cwd, JUSTFILES);
  if (file === undefined) return undefined; // no justfile: just fails
  const got = read(file);
  if ("why" in got) return { why: `just runs recipes of ${got.why}` };
  const scripts = justScripts(got.text, run.words);
  if ("why" in scripts) return { why: `just runs recipes of ${file}, but ${scripts.why}` };
  const dir = run.dir ? (at(cwd, run.dir) as string) : path.dirname(got.file);
  return {
    runs: scripts.scripts.map((text) => ({
      text,
      label: `just ${run.words.join(" ")}`.trim(),
      cwd: dir,
      file: `${got.file}#${run.words.join(" ")}`,
    })),
  };
}
