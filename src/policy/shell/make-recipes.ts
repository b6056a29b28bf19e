/**
 * The shell lines `make TARGET…` runs, read from the Makefile: the targets' recipes and their
 * prerequisites' (and the pattern rules that could make them), with make's variables expanded where the
 * Makefile says their value (automatic ones, `$(MAKE)`, command-line `VAR=value`), an unknown one left as a
 * shell variable only known when the line runs, and every `$(shell …)` (which runs when the Makefile is
 * read). Each recipe line runs in its own `sh -c` (all in one with `.ONESHELL`). What cannot be read this
 * way (`$(eval)`, another SHELL, `.RECIPEPREFIX`, an include that cannot be read) is a reason. Pure: the
 * reading of included files is the caller's.
 */

export interface MakeRun {
  /** `-C DIR` (joined, in order). */
  dirs: string[];
  /** `-f FILE` (else GNUmakefile, makefile, Makefile in the folder). */
  file?: string;
  targets: string[];
  vars: Map<string, string>;
}

/** make's options that take a value. */
const VALUE_OPTIONS = new Set([
  "-f",
  "-C",
  "-I",
  "-o",
  "-W",
  "--file",
  "--makefile",
  "--directory",
  "--include-dir",
  "--old-file",
  "--assume-old",
  "--what-if",
  "--new-file",
  "--assume-new",
]);

/** The folders, makefile, targets and variables of a make command line, or a reason. */
export function makeRun(argv: string[], dynamic: boolean[]): MakeRun | { why: string } {
  const out: MakeRun = { dirs: [], targets: [], vars: new Map() };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (dynamic[i]) return { why: `make is given ${a}, only known when the line runs` };
    if (a.startsWith("--eval")) return { why: "make --eval reads Makefile text from the line" };
    const long = /^(--file|--makefile|--directory)=(.*)$/.exec(a);
    if (long) {
      if (long[1] === "--directory") out.dirs.push(long[2] as string);
      else out.file = long[2];
      continue;
    }
    const short = /^-([fC])(.+)$/.exec(a);
    if (short) {
      if (short[1] === "C") out.dirs.push(short[2] as string);
      else out.file = short[2];
      continue;
    }
    if (VALUE_OPTIONS.has(a)) {
      const v = argv[++i];
      if (v === undefined) break;
      if (dynamic[i]) return { why: `make ${a} is given a value only known when the line runs` };
      if (a === "-C" || a === "--directory") out.dirs.push(v);
      if (a === "-f" || a === "--file" || a === "--makefile") out.file = v;
      continue;
    }
    if (a.startsWith("-")) continue;
    const eq = /^([^=:\s]+?)\s*:?=(.*)$/.exec(a);
    if (eq) out.vars.set(eq[1] as string, eq[2] as string);
    else out.targets.push(a);
  }
  return out;
}

interface Rule {
  targets: string[];
  prereqs: string[];
  recipe: string[];
}

export interface Makefile {
  rules: Rule[];
  vars: Map<string, { value: string; known: boolean }>;
  /** Text of every `$(shell …)`: it runs when the Makefile is read or a variable expanded. */
  shells: string[];
  oneShell: boolean;
  /** `include` lines, with the number of rules read before each (its rules go there: the first may be the goal). */
  includes: { names: string; optional: boolean; at: number }[];
  why?: string;
}

/** make's own variables (GNU make's defaults) that recipes commonly name. */
const BUILTIN: Record<string, string> = {
  MAKE: "make",
  CC: "cc",
  CXX: "g++",
  CPP: "cc -E",
  AR: "ar",
  AS: "as",
  LD: "ld",
  RM: "rm -f",
  LEX: "lex",
  YACC: "yacc",
  FC: "f77",
  MAKEFLAGS: "",
  MFLAGS: "",
  SHELL: "/bin/sh",
};
const SHELLS = /^(\/usr)?\/bin\/(sh|bash|dash)$|^(sh|bash|dash)$/;

/** Splits the Makefile into rules, variables and directives (both branches of a conditional are kept). */
export function parseMakefile(text: string): Makefile {
  const out: Makefile = { rules: [], vars: new Map(), shells: [], oneShell: false, includes: [] };
  const lines = text.split("\n");
  let rule: Rule | undefined;
  let conditional = 0;
  let define: { name: string; lines: string[] } | undefined;
  for (let n = 0; n < lines.length; n++) {
    let line = (lines[n] as string).replace(/\r$/, "");
    if (define) {
      if (/^\s*endef\b/.test(line)) {
        out.vars.set(define.name, { value: define.lines.join("\n"), known: conditional === 0 });
        define = undefined;
      } else define.lines.push(line);
      continue;
    }
    if (line.startsWith("\t") && rule) {
      // A recipe line: backslash-newline is passed to the shell, the next line's leading tab dropped.
      let recipe = line.slice(1);
      while (recipe.endsWith("\\") && n + 1 < lines.length)
        recipe += `\n${(lines[++n] as string).replace(/^\t/, "")}`;
      rule.recipe.push(recipe);
      out.shells.push(...shellCalls(recipe));
      if (/\$[({](eval|call)\s/.test(recipe))
        out.why ??= `a recipe computes make text (${recipe.slice(0, 60)})`;
      continue;
    }
    while (line.endsWith("\\") && n + 1 < lines.length)
      line = `${line.slice(0, -1)} ${(lines[++n] as string).trim()}`;
    const code = stripComment(line).trim();
    if (code === "") continue;
    out.shells.push(...shellCalls(code));
    if (/^(ifeq|ifneq|ifdef|ifndef)\b/.test(code)) {
      conditional++;
      continue;
    }
    if (/^endif\b/.test(code)) {
      conditional = Math.max(0, conditional - 1);
      continue;
    }
    if (/^else\b/.test(code)) continue;
    const def = /^(?:override\s+|export\s+)*define\s+(\S+)/.exec(code);
    if (def) {
      define = { name: def[1] as string, lines: [] };
      continue;
    }
    const inc = /^(-?include|sinclude)\s+(.*)$/.exec(code);
    if (inc) {
      out.includes.push({ names: inc[2] as string, optional: inc[1] !== "include", at: out.rules.length });
      rule = undefined;
      continue;
    }
    if (/\$[({](eval|call)\s/.test(code))
      out.why ??= `the Makefile computes its rules (${code.slice(0, 60)})`;
    const assign =
      /^(?:override\s+|export\s+|private\s+)*([^\s:#=?+!]+)\s*(\?=|:{1,3}=|\+=|!=|=)\s*(.*)$/.exec(code);
    if (assign && !/^[^=]*:[^=]/.test(code.slice(0, code.indexOf(assign[2] as string) + 1))) {
      const [, name, op, value] = assign as unknown as [string, string, string, string];
      if (name === ".RECIPEPREFIX") out.why ??= "the Makefile changes its recipe prefix";
      if (name === "SHELL" && !SHELLS.test(value.trim()))
        out.why ??= `its recipes run with SHELL=${value.trim()}`;
      if (op === "!=") out.shells.push(value);
      const before = out.vars.get(name);
      const known = conditional === 0 && op !== "!=" && (op !== "+=" || before?.known !== false);
      out.vars.set(name, {
        value:
          op === "+=" && before ? `${before.value} ${value}` : op === "?=" && before ? before.value : value,
        known,
      });
      rule = undefined;
      continue;
    }
    const colon = ruleColon(code);
    if (colon === -1) {
      rule = undefined;
      continue;
    }
    const targets = code.slice(0, colon).trim().split(/\s+/);
    let rest = code.slice(colon + 1).replace(/^:/, "");
    let inline: string | undefined;
    const semi = rest.indexOf(";");
    if (semi !== -1) {
      inline = rest.slice(semi + 1).trim();
      rest = rest.slice(0, semi);
    }
    // A static pattern rule (`objs: %.o: %.c`): its prerequisites follow the second colon.
    const second = rest.indexOf(":");
    if (second !== -1) rest = rest.slice(second + 1);
    if (targets.includes(".ONESHELL")) out.oneShell = true;
    rule = {
      targets,
      prereqs: rest.replace("|", " ").trim().split(/\s+/).filter(Boolean),
      recipe: inline ? [inline] : [],
    };
    out.rules.push(rule);
  }
  return out;
}

/** A `#` that starts a comment (not `\#`). */
function stripComment(line: string): string {
  const m = /(^|[^\\])#/.exec(line);
  return m ? line.slice(0, m.index + (m[1] as string).length) : line;
}

/** The index of the bracket closing the one at `open` (the text's end when none does). */
function closing(text: string, open: number): number {
  const close = text[open] === "(" ? ")" : "}";
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === text[open]) depth++;
    else if (text[i] === close && --depth === 0) return i;
  }
  return text.length;
}

/** The shell text of every `$(shell …)` in a line. */
function shellCalls(text: string): string[] {
  return [...text.matchAll(/\$[({]shell\s+/g)].map((m) =>
    text.slice((m.index ?? 0) + m[0].length, closing(text, (m.index ?? 0) + 1)),
  );
}

/** Where a rule's target list ends: the first `:` outside `$(…)` that is not part of `:=`. */
function ruleColon(code: string): number {
  let depth = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === "(" || c === "{") depth++;
    else if (c === ")" || c === "}") depth--;
    else if (c === ":" && depth === 0 && code[i + 1] !== "=") return i;
  }
  return -1;
}

const MAX_EXPANSION = 16;

/**
 * A recipe line as make hands it to the shell: `$$` is `$`, automatic variables are the rule's, a variable
 * the Makefile or the command line sets is its value, any other (the environment's, a function's result)
 * a shell variable only known when the line runs.
 */
export function expandMake(
  text: string,
  file: Makefile,
  cli: Map<string, string>,
  auto: { target: string; prereqs: string[]; stem: string },
  depth = 0,
): string {
  if (depth > MAX_EXPANSION) return "${MCQ_MAKE_DEEP}";
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== "$") {
      out += c;
      continue;
    }
    const next = text[i + 1];
    if (next === "$") {
      out += "$";
      i++;
      continue;
    }
    let name: string;
    if (next === "(" || next === "{") {
      const end = closing(text, i + 1);
      name = text.slice(i + 2, end);
      i = end;
      if (/^\S+\s/.test(name) || name.includes(":")) {
        out += "${MCQ_MAKE_FUNCTION}"; // a function (or a substitution reference): its result is not computed
        continue;
      }
    } else {
      name = next ?? "";
      i++;
    }
    out += variableValue(name, file, cli, auto, depth);
  }
  return out;
}

function variableValue(
  name: string,
  file: Makefile,
  cli: Map<string, string>,
  auto: { target: string; prereqs: string[]; stem: string },
  depth: number,
): string {
  const expand = (v: string) => expandMake(v, file, cli, auto, depth + 1);
  if (cli.has(name)) return expand(cli.get(name) as string);
  if (name === "@") return auto.target;
  if (name === "<") return auto.prereqs[0] ?? "";
  if (name === "^" || name === "+" || name === "?") return auto.prereqs.join(" ");
  if (name === "*") return auto.stem;
  const own = file.vars.get(name);
  if (own) return own.known ? expand(own.value) : `\${MCQ_MAKE_${safe(name)}}`;
  if (BUILTIN[name] !== undefined) return BUILTIN[name] as string;
  return `\${MCQ_MAKE_${safe(name)}}`;
}

const safe = (name: string) => name.replace(/[^A-Za-z0-9_]/g, "_");

/** The shell scripts `make` runs for these targets (its first target when none is named), or a reason. */
export function recipesFor(file: Makefile, run: MakeRun): { scripts: string[] } | { why: string } {
  if (file.why) return { why: file.why };
  const expandTarget = (t: string) => expandMake(t, file, run.vars, { target: "", prereqs: [], stem: "" });
  const rules = file.rules.map((r) => ({ ...r, targets: r.targets.map(expandTarget) }));
  const goal = file.vars.get(".DEFAULT_GOAL")?.value.trim();
  const first = rules.find((r) => r.targets.some((t) => !t.startsWith(".") && !t.includes("%")));
  const wanted = run.targets.length
    ? run.targets
    : goal
      ? [goal]
      : first
        ? [first.targets.find((t) => !t.startsWith(".")) as string]
        : [];
  const scripts = file.shells.map((s) =>
    expandMake(s, file, run.vars, { target: "", prereqs: [], stem: "" }),
  );
  const seen = new Set<string>();
  const queue = [...wanted];
  while (queue.length) {
    const target = queue.shift() as string;
    if (seen.has(target) || seen.size > 500) continue;
    seen.add(target);
    let matched = rules.filter((r) => r.targets.includes(target));
    let stem = "";
    if (!matched.some((r) => r.recipe.length)) {
      // No recipe of its own: a pattern rule may make it (judged with every one that matches).
      const patterns = rules.filter((r) => r.targets.some((t) => patternStem(t, target) !== undefined));
      if (patterns.length) {
        stem = patternStem(patterns[0]?.targets.find((t) => t.includes("%")) ?? "", target) ?? "";
        matched = [...matched, ...patterns];
      }
    }
    for (const r of matched) {
      const prereqs = r.prereqs.map((p) => expandTarget(p.replaceAll("%", stem)));
      queue.push(...prereqs);
      const lines = r.recipe.map((l) =>
        expandMake(l, file, run.vars, { target, prereqs, stem }).replace(/^[\s@+-]*/, ""),
      );
      if (file.oneShell) scripts.push(lines.join("\n"));
      else scripts.push(...lines);
    }
  }
  return { scripts: scripts.filter((s) => s.trim() !== "") };
}

/** The stem a pattern target (`%.o`) matches in a name, or undefined. */
function patternStem(pattern: string, name: string): string | undefined {
  const at = pattern.indexOf("%");
  if (at === -1) return undefined;
  const before = pattern.slice(0, at);
  const after = pattern.slice(at + 1);
  if (name.length < before.length + after.length || !name.startsWith(before) || !name.endsWith(after))
    return undefined;
  return name.slice(before.length, name.length - after.length);
}
