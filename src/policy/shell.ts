/**
 * Shell command lines → the simple commands they run, as a POSIX shell (bash) would: parsed with
 * tree-sitter-bash (a full grammar, so quotes, escapes, `&&`, `||`, `;`, pipes, subshells, command
 * substitutions and assignments are understood, not guessed), then looked through the wrappers that run
 * another command: `sh -c` / `bash -c` / `eval`, `env`, `sudo`, `xargs`, `nice`, `timeout`, `find -exec`,
 * `npx` and friends. Every command found is returned, nested ones included.
 */
import path from "node:path";
import { createRequire } from "node:module";
import { Language, Parser, type Node } from "web-tree-sitter";

/** One command as it would run. */
export interface SimpleCommand {
  /** Program and arguments, unquoted. */
  argv: string[];
  /** Assignments in effect for it (`FOO=1 cmd`, `env FOO=1 cmd`, an earlier `export FOO=1`). */
  env: Record<string, string>;
  /** The program whose output is piped into this one ("" when none). */
  stdinFrom: string;
  /** The wrappers it was found inside, outermost first (`sudo`, `bash -c`, `xargs`, ...). */
  via: string[];
  /** Its source text. */
  text: string;
}

export interface ParsedCommandLine {
  commands: SimpleCommand[];
  /** The text did not parse cleanly as a shell command line (what parsed is still returned). */
  parseError: boolean;
}

const MAX_DEPTH = 6;
const MAX_COMMANDS = 500;

let parserLoad: Promise<Parser> | undefined;

/** The bash parser, loaded once (WebAssembly). */
function bashParser(): Promise<Parser> {
  parserLoad ??= (async () => {
    await Parser.init();
    const require = createRequire(import.meta.url);
    const language = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  return parserLoad;
}

/** Parses a command line into every simple command it would run. */
export async function parseCommandLine(text: string): Promise<ParsedCommandLine> {
  const parser = await bashParser();
  const out: ParsedCommandLine = { commands: [], parseError: false };
  walkText(parser, text, { env: {}, via: [] }, out, 0);
  return out;
}

/** An argv given directly (no shell): only the wrappers are looked through. */
export async function commandsFromArgv(argv: string[]): Promise<ParsedCommandLine> {
  const parser = await bashParser();
  const out: ParsedCommandLine = { commands: [], parseError: false };
  lookThrough(parser, { argv, env: {}, stdinFrom: "", via: [], text: argv.join(" ") }, out, 0);
  return out;
}

interface Scope {
  env: Record<string, string>;
  via: string[];
}

function walkText(parser: Parser, text: string, scope: Scope, out: ParsedCommandLine, depth: number): void {
  if (depth > MAX_DEPTH) {
    out.parseError = true;
    return;
  }
  const tree = parser.parse(text);
  if (!tree) {
    out.parseError = true;
    return;
  }
  try {
    if (tree.rootNode.hasError) out.parseError = true;
    // `export` / bare assignments change the environment of what follows in the same line.
    const lineScope: Scope = { env: { ...scope.env }, via: scope.via };
    visit(parser, tree.rootNode, lineScope, "", out, depth);
  } finally {
    tree.delete();
  }
}

function visit(
  parser: Parser,
  node: Node,
  scope: Scope,
  stdinFrom: string,
  out: ParsedCommandLine,
  depth: number,
): void {
  switch (node.type) {
    case "command":
      return visitCommand(parser, node, scope, stdinFrom, out, depth);
    case "declaration_command":
      return visitDeclaration(parser, node, scope, out, depth);
    case "variable_assignment": {
      const [name, value] = assignment(node);
      scope.env[name] = value;
      out.commands.push({ argv: [], env: { ...scope.env }, stdinFrom, via: scope.via, text: node.text });
      return visitNested(parser, node, scope, out, depth);
    }
    case "pipeline": {
      let previous = stdinFrom;
      for (const child of node.namedChildren) {
        if (!child) continue;
        visit(parser, child, scope, previous, out, depth);
        previous = programOf(child);
      }
      return;
    }
    default:
      for (const child of node.namedChildren) if (child) visit(parser, child, scope, stdinFrom, out, depth);
  }
}

/** The program a pipeline stage runs (for `curl ... | sh`). */
function programOf(node: Node): string {
  const command = node.type === "command" ? node : node.descendantsOfType("command")[0];
  const name = command?.childForFieldName("name");
  return name ? path.basename(wordValue(name)) : "";
}

function visitCommand(
  parser: Parser,
  node: Node,
  scope: Scope,
  stdinFrom: string,
  out: ParsedCommandLine,
  depth: number,
): void {
  const env = { ...scope.env };
  const argv: string[] = [];
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "variable_assignment") {
      const [name, value] = assignment(child);
      env[name] = value;
    } else if (child.type === "command_name" || isWordLike(child.type)) {
      argv.push(wordValue(child));
    }
  }
  lookThrough(parser, { argv, env, stdinFrom, via: scope.via, text: node.text }, out, depth);
  visitNested(parser, node, scope, out, depth);
}

function visitDeclaration(parser: Parser, node: Node, scope: Scope, out: ParsedCommandLine, depth: number) {
  const keyword = node.child(0)?.text ?? "";
  const argv = [keyword];
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "variable_assignment") {
      const [name, value] = assignment(child);
      if (keyword === "export") scope.env[name] = value;
      argv.push(`${name}=${value}`);
    } else argv.push(wordValue(child));
  }
  out.commands.push({ argv, env: { ...scope.env }, stdinFrom: "", via: scope.via, text: node.text });
  visitNested(parser, node, scope, out, depth);
}

/** Commands inside arguments: `$(...)`, backquotes, `<(...)`. */
function visitNested(parser: Parser, node: Node, scope: Scope, out: ParsedCommandLine, depth: number) {
  for (const child of node.namedChildren) {
    if (!child) continue;
    for (const nested of child.descendantsOfType(["command_substitution", "process_substitution"])) {
      if (nested && nested.parent?.type !== "command_substitution")
        for (const inner of nested.namedChildren)
          if (inner) visit(parser, inner, { env: { ...scope.env }, via: scope.via }, "", out, depth);
    }
  }
}

const WORD_TYPES = new Set([
  "word",
  "string",
  "raw_string",
  "ansi_c_string",
  "translated_string",
  "concatenation",
  "simple_expansion",
  "expansion",
  "command_substitution",
  "process_substitution",
  "number",
  "arithmetic_expansion",
]);

function isWordLike(type: string): boolean {
  return WORD_TYPES.has(type);
}

function assignment(node: Node): [string, string] {
  const name = node.childForFieldName("name")?.text ?? "";
  const value = node.childForFieldName("value");
  return [name, value ? wordValue(value) : ""];
}

/** A word's value after quote removal; expansions stay as written (`$HOME`), since nothing is expanded. */
export function wordValue(node: Node): string {
  switch (node.type) {
    case "command_name":
      return node.namedChildren.map((c) => (c ? wordValue(c) : "")).join("");
    case "word":
      return node.text.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
    case "raw_string":
      return node.text.slice(1, -1);
    case "ansi_c_string":
      return node.text.slice(2, -1);
    case "string":
    case "translated_string": {
      const inner = node.text.replace(/^\$?"/, "").replace(/"$/, "");
      return inner.replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
    }
    case "concatenation":
      return node.namedChildren.length === 0 ? node.text : concatenationValue(node);
    default:
      return node.text;
  }
}

/** A concatenation's parts, with the literal text between named parts kept (`a"b"c` → abc). */
function concatenationValue(node: Node): string {
  let out = "";
  let at = node.startIndex;
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.startIndex > at)
      out += unescapeBare(node.text.slice(at - node.startIndex, child.startIndex - node.startIndex));
    out += wordValue(child);
    at = child.endIndex;
  }
  if (at < node.endIndex) out += unescapeBare(node.text.slice(at - node.startIndex));
  return out;
}

function unescapeBare(s: string): string {
  return s.replace(/\\(.)/gs, "$1");
}

// ---- wrappers that run another command ------------------------------------------------------------

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh"]);
/** Wrappers with the options that take a value (so the command after them is found). */
const PREFIX_WRAPPERS: Record<string, { valueOptions: string[]; fixedOperands?: number }> = {
  sudo: { valueOptions: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group"] },
  doas: { valueOptions: ["-u", "-C"] },
  nice: { valueOptions: ["-n", "--adjustment"] },
  ionice: { valueOptions: ["-c", "-n", "-p", "-t"] },
  nohup: { valueOptions: [] },
  time: { valueOptions: ["-f", "-o"] },
  command: { valueOptions: [] },
  exec: { valueOptions: ["-a"] },
  stdbuf: { valueOptions: ["-i", "-o", "-e"] },
  timeout: { valueOptions: ["-s", "-k", "--signal", "--kill-after"], fixedOperands: 1 },
  xargs: {
    valueOptions: [
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
    ],
  },
  npx: { valueOptions: ["-p", "--package", "-c", "--call"] },
  pnpx: { valueOptions: [] },
  bunx: { valueOptions: [] },
  uvx: { valueOptions: ["--from", "--with", "--python"] },
  chronic: { valueOptions: [] },
};
/** `tool run|exec X`: wrappers that take a subcommand first. */
const SUBCOMMAND_WRAPPERS: Record<string, string[]> = {
  npm: ["exec", "x"],
  pnpm: ["exec", "dlx"],
  yarn: ["exec", "dlx"],
  uv: ["run"],
  poetry: ["run"],
  pipx: ["run"],
  bundle: ["exec"],
  pdm: ["run"],
  hatch: ["run"],
};

function push(out: ParsedCommandLine, command: SimpleCommand): void {
  if (out.commands.length < MAX_COMMANDS) out.commands.push(command);
  else out.parseError = true;
}

/** Skips a wrapper's options; returns the index of the wrapped program (argv.length when none). */
function skipOptions(argv: string[], from: number, valueOptions: string[]): number {
  let i = from;
  while (i < argv.length) {
    const a = argv[i] as string;
    if (a === "--") return i + 1;
    if (!a.startsWith("-") || a === "-") return i;
    if (valueOptions.includes(a)) i += 2;
    else i += 1;
  }
  return i;
}

function lookThrough(parser: Parser, command: SimpleCommand, out: ParsedCommandLine, depth: number): void {
  const { argv } = command;
  if (argv.length === 0) return void push(out, command);
  const name = path.basename(argv[0] as string);
  const inner = (rest: string[], wrapper: string, env = command.env) =>
    rest.length > 0 &&
    lookThrough(parser, { ...command, argv: rest, env, via: [...command.via, wrapper] }, out, depth);

  if (name === "env") {
    const env = { ...command.env };
    let i = 1;
    for (; i < argv.length; i++) {
      const a = argv[i] as string;
      if (a === "-u" || a === "--unset" || a === "-C" || a === "--chdir") i++;
      else if (a === "-S" || a === "--split-string") {
        walkText(
          parser,
          argv.slice(i + 1).join(" "),
          { env, via: [...command.via, "env -S"] },
          out,
          depth + 1,
        );
        return;
      } else if (a.startsWith("-")) continue;
      else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
        const eq = a.indexOf("=");
        env[a.slice(0, eq)] = a.slice(eq + 1);
      } else break;
    }
    if (i >= argv.length) return void push(out, { ...command, env });
    return void inner(argv.slice(i), "env", env);
  }
  const prefix = PREFIX_WRAPPERS[name];
  if (prefix) {
    push(out, command);
    let i = skipOptions(argv, 1, prefix.valueOptions);
    i += prefix.fixedOperands ?? 0;
    return void inner(argv.slice(i), name);
  }
  const sub = SUBCOMMAND_WRAPPERS[name];
  if (sub && sub.includes(argv[1] ?? "")) {
    push(out, command);
    const i = skipOptions(argv, 2, ["-p", "--package", "--with", "--from", "--python"]);
    return void inner(argv.slice(i), `${name} ${argv[1]}`);
  }
  if (/^python(\d+(\.\d+)?)?$/.test(name) && argv[1] === "-m" && argv[2]) {
    push(out, command);
    return void inner(argv.slice(2), `${name} -m`);
  }
  if (SHELLS.has(name) || name === "eval") {
    push(out, command);
    const script = name === "eval" ? argv.slice(1).join(" ") : shellScript(argv);
    if (script !== undefined)
      walkText(
        parser,
        script,
        { env: { ...command.env }, via: [...command.via, name === "eval" ? "eval" : `${name} -c`] },
        out,
        depth + 1,
      );
    return;
  }
  if (name === "find") {
    push(out, command);
    for (let i = 1; i < argv.length; i++) {
      if (!["-exec", "-execdir", "-ok", "-okdir"].includes(argv[i] as string)) continue;
      let end = i + 1;
      while (end < argv.length && argv[end] !== ";" && argv[end] !== "+") end++;
      inner(argv.slice(i + 1, end), `find ${argv[i]}`);
      i = end;
    }
    return;
  }
  push(out, command);
}

/** The script of `sh -c SCRIPT` (also `-lc`, `-ec`, `-o pipefail -c`), if any. */
function shellScript(argv: string[]): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "-o" || a === "+o") {
      i++;
      continue;
    }
    if (!a.startsWith("-") && !a.startsWith("+")) return undefined;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a)) return argv[i + 1];
  }
  return undefined;
}
