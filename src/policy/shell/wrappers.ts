/**
 * Programs that run another command, looked through at any depth: shells (`-c`, a script on stdin, a
 * here-doc, a process substitution), `eval`, `exec`, `command`, `builtin`, `env`, `sudo`, `doas`, `su -c`,
 * `nohup`, `setsid`, `nice`, `time`, `timeout`, `stdbuf`, `flock`, `watch`, `xargs`, `find -exec`, the package
 * runners (`npx`, `npm exec`, `uv run`, …), `python -m`, git's aliases and the commands git runs, and shell
 * aliases and functions the line defines. Each wrapped command is recorded with the wrapper in `via`.
 */
import path from "node:path";
import { readGit, shellQuote, type ConfigLookup } from "../git/argv.js";
import { FIELD_BREAK } from "./words.js";
import {
  cloneScope,
  MAX_COMMANDS,
  MAX_DEPTH,
  undecided,
  walkText,
  type SimpleCommand,
  type WalkScope,
  type Walker,
} from "./walk.js";

export const SHELLS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "ash",
  "mksh",
  "yash",
  "posh",
  "fish",
  "busybox",
]);
/** Programs that read a program from stdin (or a file operand) and run it. */
export const INTERPRETERS =
  /^(python(\d+(\.\d+)?)?|pypy3?|node|nodejs|deno|bun|perl|ruby|php|lua(jit)?|Rscript|tclsh|osascript)$/;

interface PrefixSpec {
  /** Options that take the next argument (or `--opt=value`, or the rest of a short cluster). */
  value: string[];
  /** Operands before the wrapped command (timeout's duration, chroot's root, taskset's mask). */
  operands?: number;
  /** Options whose value is a shell script it runs (`su -c`, `flock -c`, `npx -c`). */
  script?: string[];
  /** Options after which the rest is joined and run by a shell (`sudo -s cmd`). */
  viaShell?: string[];
  /** Options meaning nothing is run (`command -v`). */
  noRun?: string[];
  /** Options whose value becomes the wrapped command's working directory. */
  chdir?: string[];
}

const PREFIX: Record<string, PrefixSpec> = {
  sudo: {
    value: [
      "-u",
      "-g",
      "-C",
      "-D",
      "-h",
      "-p",
      "-r",
      "-t",
      "-U",
      "-T",
      "-R",
      "--user",
      "--group",
      "--close-from",
      "--chdir",
      "--host",
      "--prompt",
      "--role",
      "--type",
      "--other-user",
      "--command-timeout",
      "--chroot",
    ],
    viaShell: ["-s", "--shell", "-i", "--login"],
    noRun: ["-l", "--list", "-v", "--validate", "-V", "--version", "-K", "--remove-timestamp"],
    chdir: ["-D", "--chdir"],
  },
  doas: { value: ["-u", "-C"], viaShell: ["-s"] },
  pkexec: { value: ["--user"] },
  runuser: {
    value: [
      "-u",
      "--user",
      "-g",
      "--group",
      "-G",
      "--supp-group",
      "-s",
      "--shell",
      "-w",
      "--whitelist-environment",
    ],
    script: ["-c", "--command"],
  },
  su: {
    value: ["-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"],
    script: ["-c", "--command", "--session-command"],
  },
  nice: { value: ["-n", "--adjustment"] },
  ionice: { value: ["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"] },
  nohup: { value: [] },
  setsid: { value: [] },
  time: { value: ["-f", "--format", "-o", "--output"] },
  command: { value: [], noRun: ["-v", "-V"] },
  builtin: { value: [] },
  exec: { value: ["-a"] },
  stdbuf: { value: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  timeout: { value: ["-s", "--signal", "-k", "--kill-after"], operands: 1 },
  chronic: { value: [] },
  caffeinate: { value: ["-t", "-w"] },
  chroot: { value: ["--userspec", "--groups"], operands: 1 },
  taskset: { value: [], operands: 1, noRun: ["-p", "--pid"] },
  numactl: {
    value: [
      "-N",
      "--cpunodebind",
      "-m",
      "--membind",
      "-C",
      "--physcpubind",
      "-p",
      "--preferred",
      "-i",
      "--interleave",
    ],
  },
  nsenter: { value: ["-t", "--target", "-S", "--setuid", "-G", "--setgid", "-r", "--root", "-w", "--wd"] },
  unshare: {
    value: ["-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd", "--map-user", "--map-group"],
  },
  strace: { value: ["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X"] },
  ltrace: { value: ["-o", "-e", "-p", "-s", "-u", "-a", "-A", "-D", "-n", "-x"] },
  firejail: { value: [] },
  flock: {
    value: ["-w", "--timeout", "-E", "--conflict-exit-code"],
    operands: 1,
    script: ["-c", "--command"],
  },
  watch: { value: ["-n", "--interval", "-d", "--differences", "-q", "--equexit"] },
  script: {
    value: [
      "-E",
      "--echo",
      "-I",
      "--log-in",
      "-O",
      "--log-out",
      "-B",
      "--log-io",
      "-T",
      "--log-timing",
      "-m",
      "--logging-format",
    ],
    script: ["-c", "--command"],
  },
  npx: { value: ["-p", "--package"], script: ["-c", "--call"] },
  pnpx: { value: [] },
  bunx: { value: [] },
  uvx: { value: ["--from", "--with", "--python", "-p", "--index", "--index-url"] },
  chpst: { value: ["-u", "-U", "-e", "-n", "-m", "-d", "-o", "-p", "-f", "-c", "-r", "-t"] },
  sg: { value: [], operands: 1, script: ["-c"] },
  direnv: { value: [] },
};

/** `tool verb …`: wrappers that take a subcommand first. */
const SUBCOMMAND: Record<string, { verbs: string[]; value: string[]; script?: string[]; chdir?: string[] }> =
  {
    npm: { verbs: ["exec", "x"], value: ["-p", "--package", "-w", "--workspace"], script: ["-c", "--call"] },
    pnpm: { verbs: ["exec", "dlx"], value: ["-C", "--dir", "--filter", "-F"] },
    yarn: { verbs: ["exec", "dlx"], value: ["-p", "--package"] },
    uv: {
      verbs: ["run"],
      value: [
        "--with",
        "--with-requirements",
        "--python",
        "-p",
        "--package",
        "--directory",
        "--project",
        "--env-file",
        "--index",
        "--index-url",
        "--extra",
        "--group",
        "--from",
      ],
      chdir: ["--directory"],
    },
    poetry: { verbs: ["run"], value: ["-C", "--directory", "-P", "--project"], chdir: ["-C", "--directory"] },
    pipx: { verbs: ["run"], value: ["--spec", "--python", "--pip-args"] },
    bundle: { verbs: ["exec"], value: ["--gemfile"] },
    pdm: { verbs: ["run"], value: ["-p", "--project"] },
    hatch: { verbs: ["run"], value: ["-e", "--env"] },
    rbenv: { verbs: ["exec"], value: [] },
    pyenv: { verbs: ["exec"], value: [] },
    direnv: { verbs: ["exec"], value: [] },
    mise: { verbs: ["exec", "x"], value: ["-C", "--cd"] },
    asdf: { verbs: ["exec"], value: [] },
    conda: { verbs: ["run"], value: ["-n", "--name", "-p", "--prefix", "--cwd"], chdir: ["--cwd"] },
  };

/** Options that take a value for xargs, which runs its command with arguments read from stdin. */
const XARGS_VALUE = [
  "-I",
  "-L",
  "-n",
  "-P",
  "-s",
  "-d",
  "-E",
  "-a",
  "--max-args",
  "--max-procs",
  "--delimiter",
  "--arg-file",
  "--max-lines",
  "--max-chars",
  "--eof",
  "--process-slot-var",
  "--replace",
];

interface SkipResult {
  /** Index of the wrapped program (argv.length when none). */
  at: number;
  /** Values of the options seen. */
  values: Map<string, string>;
  flags: Set<string>;
}

/** Skips a wrapper's options as getopt would: `--`, `--opt=v`, `--opt v`, `-abc` clusters, `-ovalue`. */
export function skipOptions(argv: string[], from: number, valueOptions: readonly string[]): SkipResult {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  let i = from;
  while (i < argv.length) {
    const a = argv[i] as string;
    if (a === "--") return { at: i + 1, values, flags };
    if (!a.startsWith("-") || a === "-") break;
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq === -1 ? a : a.slice(0, eq);
      flags.add(name);
      if (eq !== -1) values.set(name, a.slice(eq + 1));
      else if (valueOptions.includes(name)) values.set(name, argv[++i] ?? "");
      i++;
      continue;
    }
    let j = 1;
    for (; j < a.length; j++) {
      const opt = `-${a[j]}`;
      flags.add(opt);
      if (valueOptions.includes(opt)) {
        const rest = a.slice(j + 1);
        values.set(opt, rest !== "" ? rest : (argv[++i] ?? ""));
        break;
      }
    }
    i++;
  }
  return { at: i, values, flags };
}

/** Positional parameters of a script run with `sh -c SCRIPT NAME ARGS…`. */
function withPositional(scope: WalkScope, args: string[]): WalkScope {
  const inner = cloneScope(scope, { depth: scope.depth + 1 });
  for (let n = 0; n <= 9; n++) inner.vars.set(String(n), args[n] ?? "");
  // "$@" is each argument as its own field (words.ts splits at FIELD_BREAK); $* is them joined.
  inner.vars.set("@", args.slice(1).join(FIELD_BREAK));
  inner.vars.set("*", args.slice(1).join(" "));
  inner.vars.set("#", String(Math.max(0, args.length - 1)));
  return inner;
}

/** The producer named in a dynamic field's source (`$(curl …)` → curl, `<(wget …)` → wget). */
function producerOf(field: string): string {
  const m =
    /(?:\$\(|`|<\()\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:sudo\s+|command\s+|env\s+)?([A-Za-z0-9_./-]+)/.exec(
      field,
    );
  return m ? path.basename(m[1] as string) : "";
}

export interface WrapperOptions {
  lookup: ConfigLookup;
}

/** The walker's emit: records a command and everything it runs. */
export function emitterFor(walker: Walker, options: WrapperOptions): Walker["emit"] {
  const emit = (command: SimpleCommand, scope: WalkScope): void => {
    const out = walker.out;
    if (out.commands.length >= MAX_COMMANDS) {
      undecided(walker, `more than ${MAX_COMMANDS} simple commands`);
      return;
    }
    if (scope.depth > MAX_DEPTH) {
      undecided(walker, `more than ${MAX_DEPTH} nested shells or wrappers`);
      return;
    }
    const { argv } = command;
    if (argv.length === 0) return void out.commands.push(command);
    if (command.dynamic[0]) {
      command.undecided = `the program is only known when the line runs (${argv[0]})`;
      return void out.commands.push(command);
    }
    const name = path.basename(argv[0] as string);
    const nested = (
      rest: string[],
      wrapper: string,
      extra: Partial<SimpleCommand> = {},
      dynamic?: boolean[],
    ) => {
      if (rest.length === 0) return;
      const offset = argv.length - rest.length;
      emit(
        {
          ...command,
          argv: rest,
          dynamic: dynamic ?? command.dynamic.slice(offset),
          via: [...command.via, wrapper],
          redirects: [],
          ...extra,
        },
        cloneScope(scope, { depth: scope.depth + 1 }),
      );
    };
    const script = (text: string, wrapper: string, positional: string[] = [wrapper], env = command.env) =>
      walkText(walker, text, {
        ...withPositional(
          cloneScope(scope, { env: { ...env }, via: [...command.via, wrapper], cwd: command.cwd }),
          positional,
        ),
      });

    // An alias the line defined (bash expands them in interactive shells and with expand_aliases).
    const alias = scope.aliases.get(argv[0] as string);
    if (alias !== undefined && !command.via.includes(`alias ${argv[0]}`)) {
      out.commands.push(command);
      return script([alias, ...argv.slice(1).map(shellQuote)].join(" "), `alias ${argv[0]}`);
    }
    out.commands.push(command);
    if (scope.functions.has(argv[0] as string)) return; // its body was checked where it was defined

    if (name === "env") {
      const env = { ...command.env };
      let cwd = command.cwd;
      let i = 1;
      for (; i < argv.length; i++) {
        const a = argv[i] as string;
        if (a === "--") {
          i++;
          break;
        }
        if (a === "-u" || a === "--unset") i++;
        else if (a === "-C" || a === "--chdir") cwd = resolveDir(cwd, argv[++i]);
        else if (a.startsWith("--chdir=")) cwd = resolveDir(cwd, a.slice(8));
        else if (
          a === "-S" ||
          a === "--split-string" ||
          a.startsWith("--split-string=") ||
          /^-[iv0]*S/.test(a)
        ) {
          const inline = a.startsWith("--split-string=")
            ? a.slice(15)
            : /^-[iv0]*S./.test(a)
              ? a.slice(a.indexOf("S") + 1)
              : undefined;
          const text = [inline ?? argv[++i] ?? "", ...argv.slice(i + 1).map(shellQuote)].join(" ");
          return script(text, "env -S", ["env"], env);
        } else if (a.startsWith("-")) continue;
        else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
          const eq = a.indexOf("=");
          env[a.slice(0, eq)] = a.slice(eq + 1);
        } else break;
      }
      return nested(argv.slice(i), "env", { env, cwd });
    }
    const prefix = PREFIX[name];
    if (prefix) {
      const skipped = skipOptions(argv, 1, [...prefix.value, ...(prefix.script ?? [])]);
      if (prefix.noRun?.some((f) => skipped.flags.has(f))) return;
      for (const opt of prefix.script ?? [])
        if (skipped.values.has(opt)) return script(skipped.values.get(opt) as string, `${name} ${opt}`);
      let cwd = command.cwd;
      for (const opt of prefix.chdir ?? [])
        if (skipped.values.has(opt)) cwd = resolveDir(cwd, skipped.values.get(opt));
      const at = skipped.at + (prefix.operands ?? 0);
      if (prefix.viaShell?.some((f) => skipped.flags.has(f)) || name === "watch") {
        const rest = argv.slice(at);
        if (rest.length) return script(rest.join(" "), `${name} (shell)`);
        return;
      }
      if (name === "su" || name === "sg") return; // a login shell: what it runs is typed later
      return nested(argv.slice(at), name, { cwd });
    }
    const sub = SUBCOMMAND[name];
    if (sub && sub.verbs.includes(argv[1] ?? "")) {
      const skipped = skipOptions(argv, 2, [...sub.value, ...(sub.script ?? [])]);
      for (const opt of sub.script ?? [])
        if (skipped.values.has(opt))
          return script(skipped.values.get(opt) as string, `${name} ${argv[1]} ${opt}`);
      let cwd = command.cwd;
      for (const opt of sub.chdir ?? [])
        if (skipped.values.has(opt)) cwd = resolveDir(cwd, skipped.values.get(opt));
      return nested(argv.slice(skipped.at), `${name} ${argv[1]}`, { cwd });
    }
    if (name === "xargs") {
      const skipped = skipOptions(argv, 1, XARGS_VALUE);
      const rest = argv.slice(skipped.at);
      const program = rest.length ? rest : ["echo"];
      const words = command.stdin?.text?.split(/\s+/).filter(Boolean);
      const appended = words ?? ["$(<stdin>)"];
      return nested([...program, ...appended], "xargs", { stdin: undefined, stdinFrom: "" }, [
        ...(rest.length ? command.dynamic.slice(skipped.at) : [false]),
        ...appended.map(() => words === undefined),
      ]);
    }
    if (name === "find") {
      for (let i = 1; i < argv.length; i++) {
        if (!["-exec", "-execdir", "-ok", "-okdir"].includes(argv[i] as string)) continue;
        let end = i + 1;
        while (end < argv.length && argv[end] !== ";" && argv[end] !== "+") end++;
        const run = argv.slice(i + 1, end);
        nested(
          run,
          `find ${argv[i]}`,
          {},
          run.map((a, k) => a === "{}" || (command.dynamic[i + 1 + k] ?? false)),
        );
        i = end;
      }
      return;
    }
    if (/^python(\d+(\.\d+)?)?$/.test(name) && argv[1] === "-m" && argv[2])
      return nested(argv.slice(2), `${name} -m`);
    if (name === "eval") {
      if (command.dynamic.slice(1).some(Boolean)) {
        command.undecided = "eval runs text that is only known when the line runs";
        command.codeFrom.push(...argv.slice(1).map(producerOf).filter(Boolean));
        return;
      }
      return script(argv.slice(1).join(" "), "eval");
    }
    if (name === "source" || name === ".") {
      if (command.dynamic[1]) {
        const from = producerOf(argv[1] as string);
        command.codeFrom.push(from);
        command.undecided = `it runs code from ${from || "a file"} that is only known when the line runs`;
      }
      return;
    }
    if (SHELLS.has(name)) return shell(command, name, script);
    if (INTERPRETERS.test(name)) return interpreter(command, name, script);
    if (name === "git") return git(command, scope, options, emit, script);
  };
  return emit;
}

function resolveDir(cwd: string | undefined, dir: string | undefined): string | undefined {
  if (dir === undefined) return cwd;
  if (path.isAbsolute(dir)) return path.resolve(dir);
  return cwd === undefined ? undefined : path.resolve(cwd, dir);
}

type Script = (text: string, wrapper: string, positional?: string[], env?: Record<string, string>) => void;

/** sh/bash/…: `-c SCRIPT [NAME ARGS…]`, a script file, or a script read from stdin. */
function shell(command: SimpleCommand, name: string, script: Script): void {
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
    // A script file (or a process substitution: `bash <(curl …)`).
    if (command.dynamic[i]) {
      const from = producerOf(argv[i] as string);
      command.codeFrom.push(from);
      command.undecided = `${name} runs a script from ${from || "a name"} only known when the line runs`;
    }
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

/** Calls in inline code that run a command: its string literals are shell lines (or, as a list, an argv). */
const RUNS_COMMANDS =
  /\b(system|popen|Popen|subprocess|check_output|check_call|call|run|exec|execSync|execFileSync|spawn|spawnSync|execFile|shell_exec|passthru|proc_open|pcntl_exec|Command|\$\.|Bun\.spawn|Deno\.run)\b|`|%x[{([]/;

/** String literals of inline code, in order ('…', "…", `…`; escapes as most languages read them). */
export function stringLiterals(code: string): string[] {
  const out: string[] = [];
  const re = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;
  for (const m of code.matchAll(re)) {
    const raw = m[1] ?? m[2] ?? m[3] ?? "";
    out.push(
      raw
        .replace(/\\(["'`\\])/g, "$1")
        .replace(/\\n/g, "\n")
        .replace(/\\t/g, "\t"),
    );
  }
  return out;
}

/** The commands inline code runs: each literal as a shell line, and each `[…]` of literals as an argv. */
export function inlineCommands(code: string): string[] {
  if (!RUNS_COMMANDS.test(code)) return [];
  const lines = stringLiterals(code);
  for (const list of code.matchAll(
    /[[(]\s*((?:(?:'[^'\n]*'|"[^"\n]*")\s*,\s*)+(?:'[^'\n]*'|"[^"\n]*"))\s*,?\s*[\])]/g,
  ))
    lines.push(
      stringLiterals(list[1] as string)
        .map(shellQuote)
        .join(" "),
    );
  return lines;
}

/** python/node/perl/…: a script file, inline code (`-c`/`-e`: shell commands it runs), or code on stdin. */
function interpreter(command: SimpleCommand, name: string, script: Script): void {
  const { argv } = command;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (
      ["-c", "-e", "-E", "-r", "--eval", "-p", "--print", "-x", "--exec"].includes(a) ||
      /^-[A-Za-z]*[ce]$/.test(a)
    ) {
      const code = argv[i + 1] ?? "";
      if (command.dynamic[i + 1]) command.undecided = `${name} ${a} runs code only known when the line runs`;
      for (const line of inlineCommands(code)) script(line, `${name} ${a}`, [name]);
      return;
    }
    if (a === "-m") return;
    if (a === "-") break;
    if (a.startsWith("-")) {
      if (["-W", "-X", "-Q", "--require", "-r", "-I", "-M"].includes(a)) i++;
      continue;
    }
    if (command.dynamic[i]) {
      const from = producerOf(a);
      command.codeFrom.push(from);
      command.undecided = `${name} runs a script from ${from || "a name"} only known when the line runs`;
    }
    return;
  }
  readsCodeFromStdin(command, name);
}

function git(
  command: SimpleCommand,
  scope: WalkScope,
  options: WrapperOptions,
  emit: Walker["emit"],
  script: Script,
): void {
  const inv = readGit(
    command.argv,
    command.dynamic,
    command.env,
    command.cwd,
    scope.gitConfig,
    options.lookup,
  );
  command.git = inv;
  if (inv.undecided) command.undecided = inv.undecided;
  const via = `git ${inv.aliases.length ? `alias ${inv.aliases.join(" → ")}` : inv.subcommand}`;
  for (const text of inv.shell) script(text, via, ["git"]);
  for (const argv of inv.runs)
    emit(
      {
        ...command,
        argv,
        dynamic: argv.map(() => false),
        via: [...command.via, via],
        redirects: [],
        git: undefined,
      },
      cloneScope(scope, { depth: scope.depth + 1 }),
    );
}
