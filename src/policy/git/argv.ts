/**
 * git's argv as git itself reads it (git.c's global options, then the subcommand's parse-options table in
 * options.json, generated from the installed git by scripts/git-options.mjs): `-C dir`, `-c key=value`,
 * `--config-env`, GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT; aliases from any of those, from earlier
 * `git config` commands of the line, or from the repository's configuration (builtins win over aliases, as
 * in git); unique prefixes of long options (`--no-verif`), bundled short options (`-anm msg`), `--no-X`
 * negations, and the last of `--no-verify` / `--verify` winning. Pure but for the config lookup it is given.
 */
import path from "node:path";
import options from "./options.json" with { type: "json" };

interface OptionSpec {
  short?: string;
  long?: string;
  arg: "none" | "required" | "optional";
}

interface CommandTable {
  options: OptionSpec[];
  negatable: string[];
}

const TABLES = options.commands as unknown as Record<string, CommandTable>;
const BUILTINS = new Set(options.builtins);
/** Commands git runs without a table entry of their own (scripts, helpers). */
const KNOWN_COMMANDS = new Set([
  ...BUILTINS,
  "gui",
  "gitk",
  "citool",
  "instaweb",
  "p4",
  "svn",
  "send-email",
  "filter-branch",
  "request-pull",
  "subtree",
  "lfs",
  "mergetool",
  "web--browse",
  "submodule",
  "stash",
  "bisect",
  "difftool",
  "quiltimport",
  "archimport",
  "cvsimport",
  "cvsserver",
  "cvsexportcommit",
]);

export interface GitInvocation {
  /** The subcommand after aliases ("" when none); an unknown name is kept (git runs `git-<name>`). */
  subcommand: string;
  /** Options in effect: the canonical `--long` and, when it has one, the `-s` short form; negated ones removed. */
  flags: string[];
  /** Option values by canonical name (`--message`, `-X` for short-only). */
  values: Record<string, string[]>;
  operands: string[];
  /** Configuration in effect for this run (command line and environment), keys lower case. */
  config: Record<string, string>;
  /** Keys this command writes to a config file (`git config …`), lower case; `section.*` for a whole section, `*` for --edit. */
  configSet: string[];
  /** The working directory after `-C`. */
  cwd: string | undefined;
  /** An option position holds text only known when the line runs (it could be any option). */
  dynamicOption: boolean;
  /** Aliases expanded, outermost first. */
  aliases: string[];
  /** Shell text git runs for this command (a `!` alias, `rebase --exec`, `core.pager`, ...). */
  shell: string[];
  /** Argv git runs for this command (`bisect run`). */
  runs: string[][];
  /** Why git's reading of the command cannot be known ("" when it can). */
  undecided: string;
  /** For a push: the branches it updates on the remote (`HEAD` and `@` resolved to the current branch; `*` for a pattern, `:` or `--all`). */
  pushBranches?: string[];
}

/** The current branch of the repository at a directory (null: detached or none; undefined: unknown). */
export type BranchLookup = (cwd: string | undefined) => string | null | undefined;

/** What else git reads that the line decides: files the line wrote (a config), the current branch. */
export interface GitSurroundings {
  /** Files written earlier in the line, by absolute path: their text when static. */
  files?: ReadonlyMap<string, { text?: string; producer: string }>;
  branch?: BranchLookup;
}

/** A config lookup in the repository at `cwd`: the value, null when unset, undefined when it cannot be read. */
export type ConfigLookup = (
  key: string,
  cwd: string | undefined,
  env: Record<string, string>,
) => string | null | undefined;

/** `Core.HooksPath` → `core.hookspath`; a subsection keeps its case (`branch.Main.remote`). */
export function configKey(key: string): string {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first === -1) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`;
}

/** GIT_CONFIG_PARAMETERS: `'key'='value' 'key2=value2'` (sq-quoted, as git writes it). */
export function parseConfigParameters(text: string): [string, string][] {
  const out: [string, string][] = [];
  let i = 0;
  const quoted = (): string | undefined => {
    if (text[i] !== "'") return undefined;
    let s = "";
    i++;
    while (i < text.length) {
      if (text[i] === "'") {
        // '\'' is an escaped quote
        if (text.startsWith("'\\''", i)) {
          s += "'";
          i += 4;
          continue;
        }
        i++;
        return s;
      }
      s += text[i++];
    }
    return s;
  };
  while (i < text.length) {
    while (text[i] === " ") i++;
    if (i >= text.length) break;
    const first = quoted();
    if (first === undefined) {
      // Not git's format: take it whole, as a key with no value.
      out.push([text.slice(i), ""]);
      break;
    }
    if (text[i] === "=") {
      i++;
      out.push([first, quoted() ?? ""]);
    } else {
      const eq = first.indexOf("=");
      out.push(eq === -1 ? [first, "true"] : [first.slice(0, eq), first.slice(eq + 1)]);
    }
  }
  return out;
}

/** git's split_cmdline for an alias value: whitespace-separated, with '…', "…" and backslashes. */
export function splitAlias(value: string): string[] {
  const words: string[] = [];
  let current = "";
  let has = false;
  let quote: string | undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < value.length) current += value[++i];
      else current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === "\\" && i + 1 < value.length) {
      current += value[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || current) words.push(current);
      current = "";
      has = false;
    } else {
      current += c;
      has = true;
    }
  }
  if (has || current) words.push(current);
  return words;
}

/** Single-quotes a word for a shell. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const GLOBAL_WITH_VALUE = new Set([
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
  "--attr-source",
  "--list-cmds",
]);
const GLOBAL_FLAGS = new Set([
  "-p",
  "--paginate",
  "-P",
  "--no-pager",
  "--bare",
  "--no-replace-objects",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-optional-locks",
  "--no-lazy-fetch",
  "--no-advice",
  "--html-path",
  "--man-path",
  "--info-path",
  "--exec-path",
  "-v",
  "--version",
  "-h",
  "--help",
]);
/** Configuration whose value git runs as a shell command. */
const SHELL_CONFIG =
  /^(core\.(editor|pager|sshcommand|fsmonitor)|sequence\.editor|pager\..+|diff\.external|diff\..+\.textconv|filter\..+\.(clean|smudge|process)|credential\.helper|gpg\.program|gpg\..+\.program)$/;
const SHELL_ENV = [
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_PAGER",
  "GIT_SSH_COMMAND",
  "GIT_SSH",
  "GIT_EXTERNAL_DIFF",
  "GIT_ASKPASS",
];
const MAX_ALIASES = 10;

interface ParseState {
  env: Record<string, string>;
  lookup: ConfigLookup;
  lineConfig: Map<string, string>;
  around: GitSurroundings;
}

/** git's argv (argv[0] is git) with which fields are dynamic, its environment and working directory. */
export function readGit(
  argv: string[],
  dynamic: boolean[],
  env: Record<string, string>,
  cwd: string | undefined,
  lineConfig: Map<string, string>,
  lookup: ConfigLookup,
  around: GitSurroundings = {},
): GitInvocation {
  const inv: GitInvocation = {
    subcommand: "",
    flags: [],
    values: {},
    operands: [],
    config: {},
    configSet: [],
    cwd,
    dynamicOption: false,
    aliases: [],
    shell: [],
    runs: [],
    undecided: "",
  };
  const state: ParseState = { env, lookup, lineConfig, around };
  readEnvConfig(inv, env);
  let args = argv.slice(1);
  let dyn = dynamic.slice(1);
  for (let round = 0; ; round++) {
    const i = readGlobals(inv, args, dyn);
    const sub = args[i];
    // No subcommand, or an option git does not know (it stops with "unknown option"): nothing runs.
    if (sub === undefined || (sub.startsWith("-") && !dyn[i])) return finish(inv, state);
    if (dyn[i]) {
      inv.dynamicOption = true;
      inv.undecided = `git's subcommand is only known when the line runs (${sub})`;
      return finish(inv, state);
    }
    const rest = args.slice(i + 1);
    const restDyn = dyn.slice(i + 1);
    if (KNOWN_COMMANDS.has(sub)) {
      inv.subcommand = sub;
      readSubcommand(inv, sub, rest, restDyn, state);
      return finish(inv, state);
    }
    if (round >= MAX_ALIASES || inv.aliases.includes(sub)) {
      inv.undecided = `git alias ${sub} expands more than ${MAX_ALIASES} times or into itself`;
      return finish(inv, state);
    }
    const alias = aliasValue(inv, sub, state);
    if (alias === undefined) {
      inv.subcommand = sub;
      inv.undecided = `git ${sub} is not a builtin, and the repository's aliases could not be read to tell what it runs`;
      readSubcommand(inv, sub, rest, restDyn, state);
      return finish(inv, state);
    }
    if (alias === null) {
      // No alias: git runs the external `git-<sub>` from PATH; its options are its own.
      inv.subcommand = sub;
      readSubcommand(inv, sub, rest, restDyn, state);
      return finish(inv, state);
    }
    inv.aliases.push(sub);
    if (alias.startsWith("!")) {
      inv.shell.push([alias.slice(1), ...rest.map(shellQuote)].join(" "));
      inv.subcommand = sub;
      return finish(inv, state);
    }
    const words = splitAlias(alias);
    args = [...words, ...rest];
    dyn = [...words.map(() => false), ...restDyn];
  }
}

function finish(inv: GitInvocation, state: ParseState): GitInvocation {
  const env = state.env;
  readConfigFiles(inv, env, inv.cwd, state);
  for (const [key, value] of Object.entries(inv.config))
    if (SHELL_CONFIG.test(key) && value) inv.shell.push(value.replace(/^!/, ""));
  for (const name of SHELL_ENV) if (env[name]) inv.shell.push(env[name] as string);
  if (Object.keys(inv.config).some((k) => k === "include.path" || /^includeif\..+\.path$/.test(k)))
    inv.undecided ||=
      "git -c include.path reads configuration from another file, which is not read before it runs";
  return inv;
}

function setConfig(inv: GitInvocation, pair: string): void {
  const eq = pair.indexOf("=");
  inv.config[configKey(eq === -1 ? pair : pair.slice(0, eq))] = eq === -1 ? "true" : pair.slice(eq + 1);
}

/** GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n. */
function readEnvConfig(inv: GitInvocation, env: Record<string, string>): void {
  if (env.GIT_CONFIG_PARAMETERS)
    for (const [k, v] of parseConfigParameters(env.GIT_CONFIG_PARAMETERS)) inv.config[configKey(k)] = v;
  const count = Number(env.GIT_CONFIG_COUNT);
  for (const [name, key] of Object.entries(env)) {
    const m = /^GIT_CONFIG_KEY_(\d+)$/.exec(name);
    // git reads 0..COUNT-1; when COUNT is not a static number every pair may count.
    if (m && (!Number.isInteger(count) || Number(m[1]) < count))
      inv.config[configKey(key)] = env[`GIT_CONFIG_VALUE_${m[1]}`] ?? "";
  }
}

/**
 * `[section "sub"]` / `[section.sub]` headers and `key = value` lines of a git config file (comments, quotes
 * and backslash escapes as git reads them; a key without `=` is true).
 */
export function parseGitConfig(text: string): [string, string][] {
  const out: [string, string][] = [];
  let section = "";
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    if (header) {
      section =
        header[2] !== undefined ? `${header[1]}.${header[2].replace(/\\(.)/g, "$1")}` : (header[1] as string);
      line = (header[3] as string).trim();
    }
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const m = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!m || !section) continue;
    let value = "";
    let quoted = false;
    const rawValue = m[2];
    if (rawValue === undefined) value = "true";
    else
      for (let i = 0; i < rawValue.length; i++) {
        const c = rawValue[i] as string;
        if (c === '"') quoted = !quoted;
        else if (c === "\\" && i + 1 < rawValue.length) {
          const n = rawValue[++i] as string;
          value += { n: "\n", t: "\t", b: "\b" }[n] ?? n;
        } else if ((c === "#" || c === ";") && !quoted) break;
        else value += c;
      }
    out.push([configKey(`${section}.${m[1]}`), value.trim()]);
  }
  return out;
}

/** The config files a run reads that its environment (or `-c include.path`) points at. */
function configFilesOf(inv: GitInvocation, env: Record<string, string>, cwd: string | undefined): string[] {
  const at = (p: string | undefined) =>
    p === undefined || p === ""
      ? undefined
      : path.isAbsolute(p)
        ? p
        : cwd === undefined
          ? undefined
          : path.resolve(cwd, p);
  const files = [
    at(env.GIT_CONFIG_GLOBAL),
    at(env.GIT_CONFIG_SYSTEM),
    at(env.GIT_CONFIG),
    env.HOME !== undefined ? at(path.join(env.HOME, ".gitconfig")) : undefined,
    env.XDG_CONFIG_HOME !== undefined ? at(path.join(env.XDG_CONFIG_HOME, "git", "config")) : undefined,
    env.GIT_DIR !== undefined ? at(path.join(env.GIT_DIR, "config")) : undefined,
  ];
  for (const [k, v] of Object.entries(inv.config))
    if (k === "include.path" || /^includeif\..+\.path$/.test(k))
      files.push(at(v.replace(/^~(?=\/)/, env.HOME ?? "~")));
  return files.filter((f): f is string => f !== undefined);
}

/**
 * Configuration from files the run is pointed at: a file the line itself wrote is read from the line
 * (`printf '[core]\\n\\thooksPath=/dev/null' > /tmp/g && GIT_CONFIG_GLOBAL=/tmp/g git commit`); one on disk is
 * asked of git with that environment, for the keys the policies read (core.hooksPath).
 */
function readConfigFiles(
  inv: GitInvocation,
  env: Record<string, string>,
  cwd: string | undefined,
  state: ParseState,
): void {
  const dynamic = [
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG",
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_DIR",
  ].find((k) => env[k] !== undefined && /[$`]|[<>]\(/.test(env[k] as string));
  if (dynamic)
    inv.undecided ||= `git reads its configuration through ${dynamic}, which is only known when the line runs`;
  const files = configFilesOf(inv, env, cwd);
  if (files.length === 0) return;
  let fromDisk = false;
  for (const file of files) {
    const written = state.around.files?.get(file);
    if (written === undefined) {
      fromDisk = true;
      continue;
    }
    if (written.text === undefined) {
      inv.undecided ||= `git reads its configuration from ${file}, which ${written.producer} wrote earlier in the line`;
      continue;
    }
    for (const [k, v] of parseGitConfig(written.text)) if (!(k in inv.config)) inv.config[k] = v;
  }
  const overrides = [
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG",
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_DIR",
  ];
  if (fromDisk && !("core.hookspath" in inv.config) && overrides.some((k) => env[k] !== undefined)) {
    const given = state.lookup("core.hookspath", cwd, env);
    const usual = state.lookup("core.hookspath", cwd, {});
    if (given === undefined)
      inv.undecided ||= "git's configuration could not be read with the environment the line gives it";
    else if (given !== null && given !== usual) inv.config["core.hookspath"] = given;
  }
  // Includes read from the line are now known.
  if (files.every((f) => state.around.files?.get(f)?.text !== undefined))
    for (const k of Object.keys(inv.config))
      if (k === "include.path" || /^includeif\..+\.path$/.test(k)) delete inv.config[k];
}

/** git.c's options before the subcommand; returns the subcommand's index. */
function readGlobals(inv: GitInvocation, args: string[], dyn: boolean[]): number {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (dyn[i]) {
      inv.dynamicOption = true;
      return i;
    }
    if (!a.startsWith("-")) return i;
    if (a === "-C") {
      const dir = args[++i];
      if (dir === undefined) return i;
      inv.cwd = dyn[i]
        ? undefined
        : inv.cwd === undefined && !path.isAbsolute(dir)
          ? undefined
          : path.resolve(inv.cwd ?? "/", dir);
    } else if (a === "-c") {
      const pair = args[++i];
      if (pair !== undefined) setConfig(inv, pair);
    } else if (a.startsWith("--config-env")) {
      const value = a.includes("=") ? a.slice(a.indexOf("=") + 1) : args[++i];
      if (value) {
        const eq = value.indexOf("=");
        const key = eq === -1 ? value : value.slice(0, eq);
        const variable = value.slice(eq + 1);
        inv.config[configKey(key)] = inv.config[configKey(key)] ?? `$${variable}`;
      }
    } else if (a.includes("=") && GLOBAL_WITH_VALUE.has(a.slice(0, a.indexOf("=")))) continue;
    else if (GLOBAL_WITH_VALUE.has(a)) i++;
    else if (GLOBAL_FLAGS.has(a) || a.startsWith("--exec-path=")) continue;
    else return i; // git stops at an unknown option ("unknown option"): nothing runs
  }
  return i;
}

/** An alias's value: command line, then the line's earlier `git config`, then the repository; null: none. */
function aliasValue(inv: GitInvocation, sub: string, state: ParseState): string | null | undefined {
  const key = configKey(`alias.${sub}`);
  if (key in inv.config) return inv.config[key] as string;
  if (state.lineConfig.has(key)) return state.lineConfig.get(key) as string;
  return state.lookup(key, inv.cwd, state.env);
}

interface Resolved {
  spec: OptionSpec;
  negated: boolean;
}

/** A long option as git's parse-options resolves it: exact, `no-` negation, or a unique prefix (all candidates, when ambiguous). */
function resolveLong(table: CommandTable, name: string): Resolved[] {
  const byLong = new Map<string, OptionSpec>();
  for (const o of table.options) if (o.long) byLong.set(o.long, o);
  const candidates: { word: string; r: Resolved }[] = [];
  for (const [long, spec] of byLong) {
    candidates.push({ word: long, r: { spec, negated: false } });
    if (table.negatable.includes(long)) {
      if (long.startsWith("no-")) candidates.push({ word: long.slice(3), r: { spec, negated: true } });
      else candidates.push({ word: `no-${long}`, r: { spec, negated: true } });
    }
  }
  const exact = candidates.filter((c) => c.word === name);
  if (exact.length) return exact.map((c) => c.r);
  return candidates.filter((c) => c.word.startsWith(name)).map((c) => c.r);
}

function flagNames(spec: OptionSpec): string[] {
  return [...(spec.long ? [`--${spec.long}`] : []), ...(spec.short ? [`-${spec.short}`] : [])];
}

/** The subcommand's options and operands, by its table (a command without one: options kept as written). */
function readSubcommand(
  inv: GitInvocation,
  sub: string,
  args: string[],
  dyn: boolean[],
  state: ParseState,
): void {
  const table = TABLES[sub] ?? { options: [], negatable: [] };
  const inEffect = new Map<string, OptionSpec>();
  const literal: string[] = [];
  const put = (spec: OptionSpec, negated: boolean, value?: string) => {
    const key = spec.long ?? spec.short ?? "";
    if (negated) inEffect.delete(key);
    else {
      inEffect.delete(key);
      inEffect.set(key, spec);
      if (value !== undefined) (inv.values[flagNames(spec)[0] as string] ??= []).push(value);
    }
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (dyn[i]) {
      // It could be any option (or several, split): git's reading of the rest is not known.
      if (a === "" || /^[-$`]/.test(a)) inv.dynamicOption = true;
      inv.operands.push(a);
      continue;
    }
    if (a === "--") {
      inv.operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = a.slice(2, eq === -1 ? undefined : eq);
      const found = resolveLong(table, name);
      if (found.length === 0) {
        literal.push(`--${name}`);
        continue;
      }
      if (found.length > 1) {
        // git refuses an ambiguous abbreviation (exit 129: nothing runs), but which options a prefix can
        // mean depends on the git version: not a block, and not known to be harmless either.
        const could = [...new Set(found.map((f) => `--${f.negated ? "no-" : ""}${f.spec.long ?? ""}`))].join(
          ", ",
        );
        inv.undecided ||= `git refuses the ambiguous option --${name} (it could be ${could}), and another git version may read it as one of them`;
        literal.push(`--${name}`);
        continue;
      }
      for (const { spec, negated } of found) {
        let value: string | undefined;
        if (eq !== -1) value = a.slice(eq + 1);
        else if (spec.arg === "required" && !negated && found.length === 1) value = args[++i];
        put(spec, negated, value);
      }
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const letter = a[j] as string;
        const spec = table.options.find((o) => o.short === letter);
        if (!spec) {
          literal.push(`-${letter}`);
          continue;
        }
        if (spec.arg === "none") {
          put(spec, false);
          continue;
        }
        const attached = a.slice(j + 1);
        const value = attached !== "" ? attached : spec.arg === "required" ? args[++i] : undefined;
        put(spec, false, value);
        break;
      }
      continue;
    }
    inv.operands.push(a);
  }
  // git stops at an ambiguous option: none of the others take effect (the run is undecided, above).
  if (!inv.undecided.startsWith("git refuses the ambiguous option"))
    for (const spec of inEffect.values()) inv.flags.push(...flagNames(spec));
  inv.flags.push(...literal);
  afterOptions(inv, sub, args, state);
}

/**
 * The remote branches a push updates: each refspec's destination (`src:dst`, or the source's own name),
 * `HEAD` and `@` as the current branch, `*` for a pattern, `:` (matching) or --all/--mirror/--branches.
 */
function pushBranches(inv: GitInvocation, state: ParseState): string[] {
  const has = (...names: string[]) => names.some((n) => inv.flags.includes(n));
  const out: string[] = [];
  if (has("--all", "--branches", "--mirror")) out.push("*");
  const current = () => {
    const b = state.around.branch?.(inv.cwd);
    return b ?? "HEAD";
  };
  const short = (ref: string) => ref.replace(/^refs\/heads\//, "");
  for (const spec of inv.operands.slice(1)) {
    const s = spec.replace(/^\+/, "");
    if (s === ":" || s.includes("*")) {
      out.push("*");
      continue;
    }
    const colon = s.indexOf(":");
    const src = colon === -1 ? s : s.slice(0, colon);
    const dst = colon === -1 ? "" : s.slice(colon + 1);
    if (dst !== "") out.push(short(dst === "HEAD" || dst === "@" ? current() : dst));
    else if (colon === -1) out.push(src === "HEAD" || src === "@" ? current() : short(src));
  }
  // No refspec: push.default pushes the current branch.
  if (inv.operands.length < 2 && out.length === 0) out.push(current());
  return [...new Set(out)];
}

/** What some subcommands do beyond their options: config writes, commands they run. */
function afterOptions(inv: GitInvocation, sub: string, args: string[], state: ParseState): void {
  const has = (...names: string[]) => names.some((n) => inv.flags.includes(n));
  if (sub === "config") {
    const ops = inv.operands;
    const verbs = ["set", "unset", "rename-section", "remove-section", "edit", "get", "list"];
    let key: string | undefined;
    let value: string | undefined;
    let writes = false;
    if (ops[0] && verbs.includes(ops[0])) {
      const verb = ops[0];
      writes = !["get", "list"].includes(verb);
      if (verb === "edit") inv.configSet.push("*");
      else if (verb.endsWith("section")) inv.configSet.push(...ops.slice(1).map((s) => `${configKey(s)}.*`));
      else [key, value] = [ops[1], ops[2]];
    } else if (has("--edit", "-e")) {
      inv.configSet.push("*");
    } else if (has("--rename-section", "--remove-section")) {
      inv.configSet.push(...ops.map((s) => `${configKey(s)}.*`));
    } else if (has("--unset", "--unset-all", "--replace-all", "--add")) {
      writes = true;
      [key, value] = [ops[0], ops[1]];
    } else if (
      !has(
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "-l",
        "--get-color",
        "--get-colorbool",
      ) &&
      ops.length >= 2
    ) {
      writes = true;
      [key, value] = [ops[0], ops[1]];
    }
    if (writes && key) {
      inv.configSet.push(configKey(key));
      if (value !== undefined) state.lineConfig.set(configKey(key), value);
    }
  } else if (sub === "push") {
    inv.pushBranches = pushBranches(inv, state);
  } else if (sub === "rebase") {
    for (const v of inv.values["--exec"] ?? []) inv.shell.push(v);
  } else if (sub === "bisect" && inv.operands[0] === "run") {
    const at = args.indexOf("run");
    if (at !== -1 && args.length > at + 1) inv.runs.push(args.slice(at + 1));
  } else if (sub === "submodule" && inv.operands[0] === "foreach") {
    const at = args.indexOf("foreach");
    const rest = args.slice(at + 1).filter((a) => a !== "--recursive" && a !== "-q" && a !== "--quiet");
    if (rest.length) inv.shell.push(rest.join(" "));
  } else if (sub === "difftool" || sub === "mergetool") {
    for (const v of [...(inv.values["--extcmd"] ?? []), ...(inv.values["-x"] ?? [])]) inv.shell.push(v);
  }
}
