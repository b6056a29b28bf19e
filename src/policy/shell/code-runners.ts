/**
 * Shells and interpreters as wrappers: the code they run (`sh -c`, a script file the line wrote, a script on
 * stdin, `python -c`/`node -e` inline code read by inline-code.ts), walked again through the `script`
 * callback, or the reason it is only known when the line runs and the program it comes from.
 */
import path from "node:path";
import { analyzeInline } from "./inline-code.js";
import { CWD_WORD, DYNAMIC_WORD, HOME_WORD } from "./inline-calls.js";
import { stringLiterals } from "./inline-tokens.js";
import type { LineFile, SimpleCommand, WalkScope, Walker } from "./model.js";
import type { ProjectReader } from "./project-files.js";
import { shellScript, type Runs } from "./project-scripts.js";
import { INTERPRETERS } from "./wrapper-options.js";

/** Walks text as a script a wrapper runs, with its positional parameters and environment (wrappers.ts). */
export type Script = (
  text: string,
  wrapper: string,
  positional?: string[],
  env?: Record<string, string>,
) => void;

/** The producer named in a dynamic field's source (`$(curl …)` → curl, `<(wget …)` → wget). */
export function producerOf(field: string): string {
  const m =
    /(?:\$\(|`|<\()\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:sudo\s+|command\s+|env\s+)?([A-Za-z0-9_./-]+)/.exec(
      field,
    );
  return m ? path.basename(m[1] as string) : "";
}

/** sh/bash/…: `-c SCRIPT [NAME ARGS…]`, a script file, or a script read from stdin. */
export function shell(
  command: SimpleCommand,
  name: string,
  script: Script,
  scope: WalkScope,
  project?: { read: ProjectReader; run: (runs: Runs) => void },
): void {
  const { argv } = command;
  let i = 1;
  let c = false;
  let stdinScript = false;
  for (; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--" || a === "-") {
      if (a === "-") stdinScript = true;
      i++;
      break;
    }
    if (["-o", "+o", "-O", "+O", "--rcfile", "--init-file"].includes(a)) {
      i++;
      continue;
    }
    if (a.startsWith("--")) continue;
    if (!/^[-+]/.test(a)) break;
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(a)) c = true;
    if (/^-[A-Za-z]*s[A-Za-z]*$/.test(a)) stdinScript = true;
  }
  if (c) {
    const text = argv[i];
    if (text === undefined) return;
    if (command.dynamic[i]) {
      const from = producerOf(text);
      command.codeFrom.push(from);
      command.undecided = `${name} -c runs text that is only known when the line runs (${text.slice(0, 80)})`;
      return;
    }
    return script(text, `${name} -c`, argv.slice(i + 1));
  }
  if (i < argv.length && !stdinScript) {
    // A script file (or a process substitution: `bash <(curl …)`); /dev/stdin is stdin.
    if (argv[i] === "/dev/stdin" || argv[i] === "/proc/self/fd/0")
      return readsCodeFromStdin(command, name, script);
    const file = lineFile(scope, command, argv[i] as string);
    if (file?.text !== undefined) return script(file.text, `${name} ${argv[i]}`, argv.slice(i));
    if (file) {
      command.codeFrom.push(file.producer);
      command.undecided = `${name} runs ${argv[i]}, which ${file.producer} wrote earlier in the line`;
    } else if (command.dynamic[i]) {
      const from = producerOf(argv[i] as string);
      command.codeFrom.push(from);
      command.undecided = `${name} runs a script from ${from || "a name"} only known when the line runs`;
    } else if (project)
      project.run(
        shellScript(project.read, command.cwd, argv[i] as string, `${name} ${argv[i]}`, argv.slice(i)),
      );
    return;
  }
  readsCodeFromStdin(command, name, script);
}

/** A shell or an interpreter reading its program on stdin: a static one is checked, anything else is not known. */
function readsCodeFromStdin(command: SimpleCommand, name: string, script?: Script): void {
  const stdin = command.stdin;
  if (!stdin) return; // a terminal: an interactive session
  if (stdin.text !== undefined && script) return script(stdin.text, `${name} (stdin)`, [name]);
  if (stdin.from) command.codeFrom.push(stdin.from);
  command.undecided = `${name} runs the code it reads from ${stdin.from || "stdin"}, which is only known when the line runs`;
}

/** python/node/perl/…: a script file, inline code (`-c`/`-e`: what it runs, writes, downloads), or code on stdin. */
export function interpreter(
  command: SimpleCommand,
  name: string,
  script: Script,
  walker: Walker,
  scope: WalkScope,
  project?: { read: ProjectReader; run: (runs: Runs) => void },
): void {
  const { argv } = command;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (
      ["-c", "-e", "-E", "-r", "--eval", "-p", "--print", "-x", "--exec"].includes(a) ||
      /^-[A-Za-z]*[ceE]$/.test(a)
    ) {
      const code = argv[i + 1] ?? "";
      if (command.dynamic[i + 1]) command.undecided = `${name} ${a} runs code only known when the line runs`;
      inlineCode(command, name, `${name} ${a}`, code, script, walker, false);
      return;
    }
    if (a === "-m") return;
    if (a === "-") break;
    if (a.startsWith("-")) {
      if (OPTION_VALUES.has(a)) i++;
      continue;
    }
    const file = lineFile(scope, command, a);
    if (command.dynamic[i] || file) {
      const from = file?.producer ?? producerOf(a);
      command.codeFrom.push(from);
      command.undecided = `${name} runs a script from ${from || "a name"} only known when the line runs`;
    } else if (project) {
      const run = shellScript(project.read, command.cwd, a, `${name} ${a}`, []);
      if ("why" in run) command.undecided ||= run.why;
      else for (const r of run.runs) inlineCode(command, name, r.label, r.text, script, walker, true);
    }
    return;
  }
  readsCodeFromStdin(command, name);
}

/** Words of commands the policies judge: code that runs a process it names only at run time, and names one of these, is asked. */
const JUDGED_WORDS =
  /\b(git|rm|rmdir|shred|chmod|chown|curl|wget|dd|mkfs|sudo|husky|lefthook|overcommit|pre-commit|scp|rsync|ssh|nc|sh|bash|zsh)\b/;

/**
 * Inline code (`-c`/`-e`) or a script file of an interpreter: what it runs, writes, downloads and sends.
 * When it runs a process only known when it runs, inline code has each string literal judged as a command;
 * a file (larger, full of messages) is asked when it names a judged command word.
 */
function inlineCode(
  command: SimpleCommand,
  name: string,
  label: string,
  code: string,
  script: Script,
  walker: Walker,
  file: boolean,
): void {
  const inline = analyzeInline(code, name);
  const known = (text: string) => resolveWords(text, walker.home, command.cwd);
  command.inline = {
    ...inline,
    writes: inline.writes.flatMap((w) => {
      const p = known(w.path);
      return p === undefined ? [{ ...w, dynamic: true }] : [{ ...w, path: p }];
    }),
    uploads: inline.uploads.map((u) => known(u) ?? u),
  };
  if (inline.downloadsCode) command.codeFrom.push(inline.downloadsCode);
  const runsUnknown = inline.commands.some((c) => c.includes("$__mcq_dynamic"));
  // A file's computed process is walked with its computed parts unknown (`git add "$x"`); one whose program
  // itself is computed is asked only when the file names a judged command (else every script would be).
  const lines = runsUnknown && !file ? [...inline.commands, ...stringLiterals(code)] : inline.commands;
  for (const line of lines) {
    if (file && line.startsWith(DYNAMIC_WORD) && !JUDGED_WORDS.test(code)) continue;
    const text = known(line);
    if (text !== undefined) script(text, label, [name]);
  }
}

/** A project file run by its path whose `#!` names an interpreter: read as that interpreter's code, else asked. */
export function fileCode(
  command: SimpleCommand,
  interpreterName: string,
  code: string,
  script: Script,
  walker: Walker,
): void {
  if (!INTERPRETERS.test(interpreterName)) {
    command.undecided ||= `it runs ${command.argv[0]}, a ${interpreterName || "program"} script whose commands are not read`;
    return;
  }
  inlineCode(command, interpreterName, `${interpreterName} ${command.argv[0]}`, code, script, walker, true);
}

/** Interpreter options whose value is the next argument (not the script). */
const OPTION_VALUES = new Set([
  "-W",
  "-X",
  "-Q",
  "--require",
  "-r",
  "-I",
  "-M",
  "--import",
  "--loader",
  "--experimental-loader",
  "--snapshot-blob",
  "--env-file",
  "-C",
  "--conditions",
  "--input-type",
  "--title",
  "--inspect-port",
]);

/** The home folder and working directory words of inline code, replaced (undefined: the directory is unknown). */
function resolveWords(text: string, home: string, cwd: string | undefined): string | undefined {
  if (text.includes(CWD_WORD) && cwd === undefined) return undefined;
  return text
    .split(HOME_WORD)
    .join(home)
    .split(CWD_WORD)
    .join(cwd ?? "");
}

/** What the line itself wrote at a path a command reads or runs (a downloaded script, a config). */
export function lineFile(scope: WalkScope, command: SimpleCommand, file: string): LineFile | undefined {
  if (command.cwd === undefined && !path.isAbsolute(file)) return undefined;
  return scope.files.get(path.resolve(command.cwd ?? "/", file));
}
