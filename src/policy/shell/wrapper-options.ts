/**
 * The programs that run another command, and how their options are read: shells and interpreters, the
 * prefix wrappers (`sudo`, `env`-like tools, `timeout`, `flock`, `npx`, …) with the options that take a
 * value, run a script, run through a shell, run nothing or change directory, the `tool verb` runners
 * (`npm exec`, `uv run`, …), xargs' options, and getopt's way of skipping them. Tables and one pure reader.
 */
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

/**
 * sudo's short options that take a value: one list for sudo as a wrapper and for `sudo -e`/sudoedit,
 * whose operands are the files it writes.
 */
export const SUDO_SHORT_VALUE_OPTIONS = ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R"];

export const PREFIX: Record<string, PrefixSpec> = {
  sudo: {
    value: [
      ...SUDO_SHORT_VALUE_OPTIONS,
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
export const SUBCOMMAND: Record<
  string,
  { verbs: string[]; value: string[]; script?: string[]; chdir?: string[] }
> = {
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
export const XARGS_VALUE = [
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

/**
 * Reads the option word `argv[i]` (it starts with `-`, and is neither `-` nor `--`) as getopt would:
 * `--opt=v`, `--opt v`, `-abc` clusters, `-ovalue`, `-o v`, into `flags` and `values`. Returns the index
 * of the last word it used: `i`, or `i + 1` when the value is the next word. Wrappers and the commands
 * whose operands are written share it, so both read an option's value the same way.
 */
export function readOptionWord(
  argv: readonly string[],
  i: number,
  valueOptions: readonly string[],
  values: Map<string, string>,
  flags: Set<string>,
): number {
  const a = argv[i] as string;
  if (a.startsWith("--")) {
    const eq = a.indexOf("=");
    const name = eq === -1 ? a : a.slice(0, eq);
    flags.add(name);
    if (eq !== -1) values.set(name, a.slice(eq + 1));
    else if (valueOptions.includes(name)) values.set(name, argv[++i] ?? "");
    return i;
  }
  for (let j = 1; j < a.length; j++) {
    const opt = `-${a[j]}`;
    flags.add(opt);
    if (valueOptions.includes(opt)) {
      const rest = a.slice(j + 1);
      values.set(opt, rest !== "" ? rest : (argv[++i] ?? ""));
      break;
    }
  }
  return i;
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
    i = readOptionWord(argv, i, valueOptions, values, flags) + 1;
  }
  return { at: i, values, flags };
}
