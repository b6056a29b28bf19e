/**
 * Programs that run another command, looked through at any depth: shells (`-c`, a script on stdin, a
 * here-doc, a process substitution), `eval`, `exec`, `command`, `builtin`, `env`, `sudo`, `doas`, `su -c`,
 * `nohup`, `setsid`, `nice`, `time`, `timeout`, `stdbuf`, `flock`, `watch`, `xargs`, `find -exec`, the package
 * runners (`npx`, `npm exec`, `uv run`, …), `python -m`, git's aliases and the commands git runs, and shell
 * aliases and functions the line defines. Each wrapped command is recorded with the wrapper in `via`.
 */
import path from "node:path";
import { readGit, shellQuote } from "../git/argv.js";
import type { BranchLookup, ConfigLookup } from "../git/invocation.js";
import { readFind } from "./find.js";
import { recordLineFiles, writesOf } from "./writes.js";
import { analyzeInline } from "./inline-code.js";
import { CWD_WORD, HOME_WORD } from "./inline-calls.js";
import { stringLiterals } from "./inline-tokens.js";
import { FIELD_BREAK } from "./words.js";
import {
  MAX_COMMANDS,
  MAX_DEPTH,
  type LineFile,
  type SimpleCommand,
  type WalkScope,
  type Walker,
} from "./model.js";
import { cloneScope, undecided } from "./scope.js";
import { walkText } from "./walk.js";

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
  branch?: BranchLookup;
}

/** The walker's emit: records a command and everything it runs. */
export function emitterFor(walker: Walker, options: WrapperOptions): Walker["emit"] {
  const emit = (command: SimpleCommand, scope: WalkScope): void => {
    const out = walker.out;
    if (walker.deadline !== undefined && Date.now() > walker.deadline) {
      undecided(walker, "the line was not read within the check's deadline");
      return;
    }
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
    command.writes = writesOf(command);
    recordLineFiles(command, scope.files);
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
      // `find … | xargs rm`, `ls | xargs rm`: what the producer lists, when it lists a whole tree.
      const tree = words === undefined ? treeListed(command.stdin?.argv) : undefined;
      if (tree)
        return nested(recursively([...program, ...tree]), "xargs", { stdin: undefined, stdinFrom: "" }, []);
      const appended = words ?? ["$(<stdin>)"];
      return nested([...program, ...appended], "xargs", { stdin: undefined, stdinFrom: "" }, [
        ...(rest.length ? command.dynamic.slice(skipped.at) : [false]),
        ...appended.map(() => words === undefined),
      ]);
    }
    if (name === "find") {
      const found = readFind(argv);
      const starts = found.starts.filter((_, k) => !command.dynamic[1 + k]);
      for (let i = found.expressionAt; i < argv.length; i++) {
        if (!["-exec", "-execdir", "-ok", "-okdir"].includes(argv[i] as string)) continue;
        let end = i + 1;
        while (end < argv.length && argv[end] !== ";" && argv[end] !== "+") end++;
        const run = argv.slice(i + 1, end);
        // A find that can match every file runs its command on the whole tree: `find . -exec chmod 777 {} +`
        // is `chmod -R 777 .`, `find ~ -exec rm -rf {} +` is `rm -rf ~`.
        if (
          found.broad &&
          starts.length === found.starts.length &&
          run.includes("{}") &&
          argv[i]?.startsWith("-exec")
        )
          nested(recursively(run.flatMap((a) => (a === "{}" ? starts : [a]))), `find ${argv[i]}`, {}, []);
        else
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
    if (name === "busybox" && argv[1] !== undefined && !argv[1].startsWith("-"))
      return nested(argv.slice(1), "busybox");
    if (name === "parallel") return parallel(command, script);
    // A program the line itself wrote (`curl -o x.sh URL && chmod +x x.sh && ./x.sh`).
    const written = (argv[0] as string).includes("/")
      ? lineFile(scope, command, argv[0] as string)
      : undefined;
    if (written?.text !== undefined) return script(written.text, argv[0] as string, argv);
    if (written && written.text === undefined) {
      command.codeFrom.push(written.producer);
      command.undecided ||= `it runs ${argv[0]}, which ${written.producer} wrote earlier in the line`;
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
      const file = argv[1] !== undefined ? lineFile(scope, command, argv[1]) : undefined;
      if (file?.text !== undefined) return script(file.text, name);
      if (command.dynamic[1] || file) {
        const from = file?.producer ?? producerOf(argv[1] as string);
        command.codeFrom.push(from);
        command.undecided = `it runs code from ${from || "a file"} that is only known when the line runs`;
      }
      return;
    }
    if (SHELLS.has(name)) return shell(command, name, script, scope);
    if (INTERPRETERS.test(name)) return interpreter(command, name, script, walker, scope);
    if (name === "git") return git(command, scope, options, emit, script);
  };
  return emit;
}

/** Programs that take a recursive flag, and which. */
const RECURSIVE_FLAG: Record<string, string> = {
  rm: "-r",
  chmod: "-R",
  chown: "-R",
  chgrp: "-R",
  setfacl: "-R",
  shred: "-r",
};

/** A command run over every file of a tree, spelled as its recursive form on the tree's roots. */
function recursively(argv: string[]): string[] {
  const flag = RECURSIVE_FLAG[path.basename(argv[0] ?? "")];
  return flag ? [argv[0] as string, flag, ...argv.slice(1)] : argv;
}

/** The roots of what a producer lists when it lists whole trees (`find . -type f`, `ls`, `ls ~`). */
function treeListed(producer: string[] | undefined): string[] | undefined {
  if (!producer?.length) return undefined;
  const name = path.basename(producer[0] as string);
  if (name === "find") {
    const found = readFind(producer);
    return found.broad ? found.starts : undefined;
  }
  if (name === "ls" || name === "fd" || name === "fdfind") {
    const operands = producer.slice(1).filter((a) => !a.startsWith("-"));
    if (name !== "ls" && operands.length) return undefined;
    return (operands.length ? operands : ["."]).map((d) => (d.endsWith("/") ? `${d}*` : `${d}/*`));
  }
  return undefined;
}

/**
 * GNU parallel: `parallel CMD ::: ARGS` runs CMD (through a shell) with each argument in place of `{}` (or
 * appended); with no CMD each argument is a command line; `::::` reads them from files; stdin when neither.
 */
function parallel(command: SimpleCommand, script: Script): void {
  const { argv } = command;
  const sep = argv.findIndex((a, i) => i > 0 && /^:::[+]?$|^::::[+]?$/.test(a));
  const options = skipOptions(argv.slice(0, sep === -1 ? undefined : sep), 1, [
    "-j",
    "--jobs",
    "-S",
    "--sshlogin",
    "--joblog",
    "--results",
    "-a",
    "--arg-file",
    "-d",
    "--delimiter",
    "-I",
    "--colsep",
    "--tmpdir",
    "--workdir",
    "--timeout",
    "--retries",
    "-n",
    "--max-args",
    "-N",
    "--tag-string",
  ]);
  const template = argv.slice(options.at, sep === -1 ? undefined : sep);
  const inputs =
    sep === -1
      ? (command.stdin?.text?.split("\n").filter(Boolean) ?? [])
      : argv[sep]?.startsWith("::::")
        ? []
        : argv.slice(sep + 1).filter((a) => !/^:::[+]?$/.test(a));
  if (sep === -1 && command.stdin && command.stdin.text === undefined) {
    command.undecided =
      "parallel runs the commands it reads on stdin, which are only known when the line runs";
    return;
  }
  if (sep !== -1 && argv[sep]?.startsWith("::::")) {
    command.undecided = "parallel runs arguments read from a file, which are only known when the line runs";
    return;
  }
  if (command.dynamic.slice(1).some(Boolean))
    command.undecided = "parallel runs text that is only known when the line runs";
  for (const input of inputs.length ? inputs : [""]) {
    const text = template.length
      ? template.join(" ").includes("{}")
        ? template.join(" ").split("{}").join(input)
        : `${template.join(" ")} ${input}`
      : input;
    if (text.trim()) script(text, "parallel");
  }
}

function resolveDir(cwd: string | undefined, dir: string | undefined): string | undefined {
  if (dir === undefined) return cwd;
  if (path.isAbsolute(dir)) return path.resolve(dir);
  return cwd === undefined ? undefined : path.resolve(cwd, dir);
}

type Script = (text: string, wrapper: string, positional?: string[], env?: Record<string, string>) => void;

/** sh/bash/…: `-c SCRIPT [NAME ARGS…]`, a script file, or a script read from stdin. */
function shell(command: SimpleCommand, name: string, script: Script, scope: WalkScope): void {
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

/** python/node/perl/…: a script file, inline code (`-c`/`-e`: what it runs, writes, downloads), or code on stdin. */
function interpreter(
  command: SimpleCommand,
  name: string,
  script: Script,
  walker: Walker,
  scope: WalkScope,
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
      const lines = runsUnknown ? [...inline.commands, ...stringLiterals(code)] : inline.commands;
      for (const line of lines) {
        const text = known(line);
        if (text !== undefined) script(text, `${name} ${a}`, [name]);
      }
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
    }
    return;
  }
  readsCodeFromStdin(command, name);
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
    { files: scope.files, ...(options.branch ? { branch: options.branch } : {}) },
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
