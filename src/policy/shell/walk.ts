/**
 * A parsed command line → every simple command it would run, with the fields bash would pass after its
 * static expansions (words.ts), the variables and working directory in effect, what each reads on stdin
 * (a here-doc, a here-string, another command's output) and the files its redirections write. Sub-shells,
 * `$(…)`, pipelines, lists, functions, loops and branches are walked; wrappers (wrappers.ts) are looked
 * through at any depth. Whatever cannot be decided within the budget is said in `undecided`, never dropped.
 */
import path from "node:path";
import type { Node, Parser } from "web-tree-sitter";
import { outputOf, sourcesInText } from "./flows.js";
import { expandWord, variable, wordText, type ExpandScope, type Field, type Vars } from "./words.js";

/** A file a command writes, removes, re-modes or links (as written; resolved by the checks). */
export interface Write {
  path: string;
  kind: "write" | "delete" | "mode" | "link";
  /** Its name is only known when the line runs. */
  dynamic: boolean;
  /** A recursive operation on a directory (rm -r, chmod -R, cp -r onto). */
  recursive?: boolean;
  /** Only the files under it whose names match one of these globs (`find . -name '*.pyc' -delete`). */
  names?: string[];
  /** `>>`: adds to the file. */
  append?: boolean;
}

/** What a command reads on stdin, when the line says. */
export interface Stdin {
  /** The program whose output it reads ("" for a here-doc or here-string). */
  from: string;
  /** The text, when it is static (a quoted here-doc, a here-string, `echo`/`printf`/`cat` of static text). */
  text?: string;
  /** Where its data comes from: files read (absolute when the directory is known) and `$ENV` for the environment. */
  sources?: string[];
  /** The producing command's argv, when static (`find . -type f | xargs rm`). */
  argv?: string[];
}

/** A file the line wrote before this point: its text when static, else the program that wrote it. */
export interface LineFile {
  text?: string;
  producer: string;
}

/** One command as it would run. */
export interface SimpleCommand {
  /** Program and arguments, after expansion and quote removal. */
  argv: string[];
  /** Per argv entry: only known when the line runs (another program's output, an unset variable). */
  dynamic: boolean[];
  /** Assignments in effect for it (`FOO=1 cmd`, `env FOO=1 cmd`, an earlier `export FOO=1` or `FOO=1;`). */
  env: Record<string, string>;
  /** The program whose output is piped into it ("" when none). */
  stdinFrom: string;
  stdin?: Stdin;
  /** The wrappers it was found inside, outermost first (`sudo`, `bash -c`, `xargs`, ...). */
  via: string[];
  /** Its source text. */
  text: string;
  /** Its working directory when the line says (`cd dir && …`, `env -C`, `git -C`); undefined when unknown. */
  cwd?: string;
  /** Files its redirections write. */
  redirects: Write[];
  /** Every file it writes: its redirections and what the program does to its operands (shell/writes.ts). */
  writes?: Write[];
  /** The programs whose output it runs as code (`curl … | sh`, `bash <(curl …)`, `sh -c "$(curl …)"`). */
  codeFrom: string[];
  /** Why the command cannot be judged from the line ("" when it can). */
  undecided: string;
  /** git's own reading of its argv (git/argv.ts), for a git command. */
  git?: import("../git/invocation.js").GitInvocation;
  /** What it sends to the network (flows.ts): files and `$ENV`. */
  uploads?: string[];
  /** Trees and files it deletes (deletions.ts). */
  deletes?: import("./deletion.js").Deletion[];
  /** Its working directory before the line's last `cd`, when known. */
  oldCwd?: string;
  /** What its inline code does (`python -c`, `node -e`, …): inline-code.ts, paths resolved. */
  inline?: import("./inline-code.js").InlineAnalysis;
}

export interface ParsedCommandLine {
  commands: SimpleCommand[];
  /** The text did not parse cleanly as a shell command line (what parsed is still returned). */
  parseError: boolean;
  /** Reasons the line as a whole cannot be decided (budget, nesting). */
  undecided: string[];
}

/** Nested shells (`bash -c "bash -c …"`) and wrappers followed; deeper is undecided. */
export const MAX_DEPTH = 12;
/** Simple commands found in one line; more is undecided. */
export const MAX_COMMANDS = 500;
/** Iterations of a `for` loop evaluated with each static value. */
const MAX_LOOP_VALUES = 16;

export interface WalkScope {
  vars: Vars;
  /** Assignments in effect, as the policies see them (static values, or the text as written). */
  env: Record<string, string>;
  cwd: string | undefined;
  /** The working directory before the line's last `cd` (`~-`, `$OLDPWD`); undefined before any. */
  oldCwd?: string;
  via: string[];
  functions: Set<string>;
  aliases: Map<string, string>;
  /** Git configuration set persistently by earlier commands of the line (`git config alias.x …`), keys lower case. */
  gitConfig: Map<string, string>;
  /** Files written by earlier commands of the line, by absolute path (a config or a script the line then uses). */
  files: Map<string, LineFile>;
  /** Nesting of shells and wrappers so far. */
  depth: number;
}

/** How the walker reaches the parser and the wrapper logic (wrappers.ts), which walk nested text again. */
export interface Walker {
  /** Absent until a text needs it: plain words (plainWords) are read without it. */
  parser?: Parser;
  /** Read plain words without the parser (off: every text is parsed, to prove both agree). */
  plain: boolean;
  home: string;
  out: ParsedCommandLine;
  /** The top of the git work tree holding a directory (`git rev-parse --show-toplevel`), when there is one. */
  repoTop?: (cwd: string) => string | undefined;
  /** Past this time (ms since the epoch) the walk stops, undecided. */
  deadline?: number;
  /** Looks through a command's wrappers and records it (and what it wraps). */
  emit(command: SimpleCommand, scope: WalkScope): void;
}

export function cloneScope(scope: WalkScope, extra: Partial<WalkScope> = {}): WalkScope {
  return {
    vars: new Map(scope.vars),
    env: { ...scope.env },
    cwd: scope.cwd,
    ...(scope.oldCwd !== undefined ? { oldCwd: scope.oldCwd } : {}),
    via: scope.via,
    functions: new Set(scope.functions),
    aliases: new Map(scope.aliases),
    gitConfig: scope.gitConfig,
    files: scope.files,
    depth: scope.depth,
    ...extra,
  };
}

/** Parses `text` as a script run in `scope` and walks it (shells, `eval`, here-docs fed to a shell). */
export function walkText(walker: Walker, text: string, scope: WalkScope): void {
  if (scope.depth > MAX_DEPTH) {
    undecided(walker, `more than ${MAX_DEPTH} nested shells or wrappers`);
    return;
  }
  const words = walker.plain ? plainWords(text) : undefined;
  if (words) {
    visitPlain(walker, text.trim(), words, scope);
    return;
  }
  if (!walker.parser) throw new NeedsParser();
  const deadline = walker.deadline;
  const tree = walker.parser.parse(
    text,
    null,
    deadline === undefined ? undefined : { progressCallback: () => Date.now() > deadline },
  );
  if (!tree) {
    if (deadline !== undefined && Date.now() > deadline)
      undecided(walker, "the line did not parse within the deadline");
    else walker.out.parseError = true;
    return;
  }
  try {
    if (tree.rootNode.hasError) walker.out.parseError = true;
    visit(walker, tree.rootNode, scope, undefined);
  } finally {
    tree.delete();
  }
}

/** Thrown by walkText for a text that must be parsed when the walker has no parser yet. */
export class NeedsParser extends Error {}

/** Only characters that mean themselves to bash: no quotes, expansions, globs, operators, comments, tilde. */
const PLAIN = /^[A-Za-z0-9_./:@%+,= -]*$/;
/** Words tree-sitter-bash reads as syntax (or bash as reserved), wherever they are: such a line is parsed. */
const KEYWORDS = new Set(
  "case coproc declare do done elif else esac export fi for function if in local readonly select then time typeset unset unsetenv until while".split(
    " ",
  ),
);

/**
 * The words of a line that is one simple command of plain words (split at spaces, as bash would), or
 * undefined when it must be parsed: anything else, a keyword, an assignment first.
 */
export function plainWords(text: string): string[] | undefined {
  if (!PLAIN.test(text)) return undefined;
  const words = text.split(" ").filter((w) => w !== "");
  if (words.length === 0 || (words[0] as string).includes("=")) return undefined;
  return words.some((w) => KEYWORDS.has(w)) ? undefined : words;
}

/** The one command of plain words, as visitCommand makes it from the parsed line. */
function visitPlain(walker: Walker, text: string, words: string[], scope: WalkScope): void {
  const command: SimpleCommand = { ...bare(text, scope), argv: words, dynamic: words.map(() => false) };
  applyLineEffects(command, scope, walker.home);
  walker.emit(command, scope);
}

export function undecided(walker: Walker, reason: string): void {
  if (!walker.out.undecided.includes(reason)) walker.out.undecided.push(reason);
}

function expandScope(walker: Walker, scope: WalkScope): ExpandScope {
  return {
    vars: scope.vars,
    home: walker.home,
    ...(scope.cwd !== undefined ? { cwd: scope.cwd } : {}),
    ...(scope.oldCwd !== undefined ? { oldCwd: scope.oldCwd } : {}),
    substitute: (node) => staticOutput(walker, node, scope),
  };
}

/** The output of `$(…)` when its one command prints static text (echo, printf, cat of a here-doc). */
function staticOutput(walker: Walker, node: Node, scope: WalkScope): string | undefined {
  // Pure: the commands inside are visited (checked) once, by visitSubstitutions.
  const inner = node.namedChildren.filter((c) => c !== null);
  if (inner.length !== 1) return undefined;
  const only = inner[0] as Node;
  const command = only.type === "redirected_statement" ? only.namedChildren[0] : only;
  if (!command || command.type !== "command") return undefined;
  const fields = commandFields(walker, command, cloneScope(scope));
  if (!fields || fields.some((f) => f.dynamic)) return undefined;
  const stdin = only.type === "redirected_statement" ? heredocText(only, scope, walker) : undefined;
  const argv = fields.map((f) => f.value);
  return printed(argv, stdin) ?? known(walker, argv, scope);
}

/**
 * What a few commands print that the shell knows before the line runs: `pwd`, `git rev-parse
 * --show-toplevel`, `realpath`/`readlink -f`/`dirname` of known paths, and a fresh `mktemp` name (a new
 * file under the temporary folder, whatever its random part).
 */
function known(walker: Walker, argv: string[], scope: WalkScope): string | undefined {
  const name = path.basename(argv[0] ?? "");
  const args = argv.slice(1);
  const cwd = scope.cwd;
  if (name === "pwd" && args.every((a) => /^-[LP]$/.test(a))) return cwd;
  if (
    name === "mktemp" &&
    !args.some((a) => a.startsWith("-p") || a.startsWith("--tmpdir") || !a.startsWith("-"))
  )
    return "/tmp/tmp.mktemp";
  if (cwd === undefined) return undefined;
  if (name === "git" && args.length === 2 && args[0] === "rev-parse" && args[1] === "--show-toplevel")
    return walker.repoTop?.(cwd);
  const operands = args.filter((a) => !a.startsWith("-"));
  if (operands.length !== 1) return undefined;
  const target = path.resolve(cwd, operands[0] as string);
  if (name === "realpath" || (name === "readlink" && args.some((a) => /^-[a-z]*[fem]/.test(a))))
    return target;
  if (name === "dirname") return path.dirname(operands[0] as string);
  return undefined;
}

/** What echo / printf / cat print given static arguments (and stdin), or undefined for anything else. */
export function printed(argv: string[], stdin?: string): string | undefined {
  const name = path.basename(argv[0] ?? "");
  const args = argv.slice(1);
  if (name === "echo") {
    let i = 0;
    let newline = true;
    let escapes = false;
    while (i < args.length && /^-[neE]+$/.test(args[i] as string)) {
      const flags = args[i] as string;
      if (flags.includes("n")) newline = false;
      if (flags.includes("e")) escapes = true;
      if (flags.includes("E")) escapes = false;
      i++;
    }
    let text = args.slice(i).join(" ");
    if (escapes)
      text = text.replace(/\\(.)/g, (_, c: string) => ({ n: "\n", t: "\t", "\\": "\\" })[c] ?? `\\${c}`);
    return newline ? `${text}\n` : text;
  }
  if (name === "printf") {
    const [format, ...rest] = args[0] === "--" ? args.slice(1) : args;
    if (format === undefined) return undefined;
    // %s and %b with the arguments in turn (the format repeats while arguments remain), \n and \t escapes.
    if (/%[^sb%]/.test(format)) return undefined;
    const unescape = (s: string) => s.replace(/\\n/g, "\n").replace(/\\t/g, "\t").replace(/\\\\/g, "\\");
    const slots = (format.match(/%[sb]/g) ?? []).length;
    let out = "";
    let k = 0;
    do {
      out += unescape(format).replace(/%([sb%])/g, (_, c: string) => (c === "%" ? "%" : (rest[k++] ?? "")));
    } while (slots > 0 && k < rest.length);
    return out;
  }
  if (name === "cat" && args.length === 0) return stdin;
  return undefined;
}

/** The text a here-doc or here-string of a redirected statement feeds its command, when static. */
function heredocText(node: Node, scope: WalkScope, walker: Walker): string | undefined {
  for (const child of node.namedChildren) {
    if (child?.type === "heredoc_redirect") {
      const body = child.namedChildren.find((c) => c?.type === "heredoc_body");
      return body ? body.text : "";
    }
    if (child?.type === "herestring_redirect") {
      const word = child.namedChildren[0];
      if (!word) return undefined;
      const field = wordText(word, expandScope(walker, scope));
      return field.dynamic ? undefined : `${field.value}\n`;
    }
  }
  return undefined;
}

/** The fields of a command node's name and arguments (assignments and redirections excluded). */
function commandFields(walker: Walker, node: Node, scope: WalkScope): Field[] | undefined {
  const fields: Field[] = [];
  const expand = expandScope(walker, scope);
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "variable_assignment" || child.type.endsWith("redirect")) continue;
    fields.push(...expandWord(child, expand));
  }
  return fields;
}

/** The outermost `$(…)`, backquotes and `<(…)` inside a node (nested ones are reached through them). */
function outerSubstitutions(node: Node, out: Node[] = []): Node[] {
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "command_substitution" || child.type === "process_substitution") out.push(child);
    else outerSubstitutions(child, out);
  }
  return out;
}

/**
 * Every command inside a node's substitutions runs (in a sub-shell), whatever it prints; an output process
 * substitution (`> >(sh)`, `tee >(sh)`) reads what the command prints (`feed`).
 */
function visitSubstitutions(walker: Walker, node: Node, scope: WalkScope, feed?: PipeInput): void {
  for (const s of outerSubstitutions(node)) {
    const input = s.type === "process_substitution" && s.text.startsWith(">(") ? feed : undefined;
    for (const inner of s.namedChildren) if (inner) visit(walker, inner, cloneScope(scope), input);
  }
}

export interface PipeInput {
  from: string;
  text?: string;
  /** Where the data comes from (files read, `$ENV`), as far as the line says. */
  sources?: string[];
  /** The producing command's argv, when static. */
  argv?: string[];
}

/** Visits a node in a scope; `stdin` is what a pipeline feeds it. */
export function visit(walker: Walker, node: Node, scope: WalkScope, stdin: PipeInput | undefined): void {
  switch (node.type) {
    case "command":
      return visitCommand(walker, node, scope, stdin, []);
    case "redirected_statement":
      return visitRedirected(walker, node, scope, stdin);
    case "declaration_command":
      return visitDeclaration(walker, node, scope);
    case "unset_command":
      for (const c of node.namedChildren) if (c) scope.vars.delete(c.text);
      return;
    case "variable_assignment": {
      visitSubstitutions(walker, node, scope);
      assign(walker, node, scope, scope);
      walker.emit(bare(node.text, scope), scope);
      return;
    }
    case "pipeline":
      return visitPipeline(
        walker,
        node.namedChildren.filter((c): c is Node => c !== null),
        scope,
        stdin,
      );
    case "subshell":
    case "command_substitution":
    case "process_substitution":
      for (const c of node.namedChildren) if (c) visit(walker, c, cloneScope(scope), undefined);
      return;
    case "function_definition": {
      const name = node.childForFieldName("name")?.text ?? node.namedChildren[0]?.text ?? "";
      scope.functions.add(name);
      // Its body runs when it is called, with arguments only known then.
      const body = cloneScope(scope);
      for (const p of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*"]) body.vars.set(p, null);
      const inner = node.childForFieldName("body") ?? node.namedChildren.at(-1);
      if (inner) visit(walker, inner, body, undefined);
      return;
    }
    case "for_statement":
      return visitFor(walker, node, scope);
    case "if_statement":
    case "case_statement":
    case "while_statement":
    case "c_style_for_statement": {
      // Branches may or may not run: what they set is unknown afterwards unless every way agrees.
      const inner = cloneScope(scope);
      for (const c of node.namedChildren) if (c) visit(walker, c, inner, undefined);
      merge(scope, inner);
      return;
    }
    case "ERROR":
      walker.out.parseError = true;
      for (const c of node.namedChildren) if (c) visit(walker, c, scope, undefined);
      return;
    default:
      if (node.type.endsWith("redirect")) return;
      for (const c of node.namedChildren) if (c) visit(walker, c, scope, undefined);
  }
}

/** Variables a branch changed are unknown after it (unless unchanged); functions and aliases it defines stay. */
function merge(outer: WalkScope, inner: WalkScope): void {
  for (const [name, value] of inner.vars) if (outer.vars.get(name) !== value) outer.vars.set(name, null);
  for (const [name, value] of Object.entries(inner.env))
    if (outer.env[name] !== value) outer.env[name] = value;
  for (const f of inner.functions) outer.functions.add(f);
  for (const [k, v] of inner.aliases) outer.aliases.set(k, v);
  if (inner.cwd !== outer.cwd) outer.cwd = undefined;
  if (inner.oldCwd !== outer.oldCwd) delete outer.oldCwd;
}

function visitFor(walker: Walker, node: Node, scope: WalkScope): void {
  const variableNode =
    node.childForFieldName("variable") ?? node.namedChildren.find((c) => c?.type === "variable_name");
  const name = variableNode?.text ?? "";
  const body = node.childForFieldName("body") ?? node.namedChildren.find((c) => c?.type === "do_group");
  const values: Field[] = [];
  let hasList = false;
  // web-tree-sitter hands out a new wrapper per access: nodes are compared by id.
  for (const c of node.namedChildren) {
    if (!c || c.id === variableNode?.id || c.id === body?.id) continue;
    hasList = true;
    visitSubstitutions(walker, c, scope);
    values.push(...expandWord(c, expandScope(walker, scope)));
  }
  const known = hasList && values.length <= MAX_LOOP_VALUES && values.every((v) => !v.dynamic);
  const runs: (string | null)[] = known ? values.map((v) => v.value) : [null];
  for (const value of runs.length ? runs : [null]) {
    const inner = cloneScope(scope);
    inner.vars.set(name, value);
    if (body) visit(walker, body, inner, undefined);
    merge(scope, inner);
  }
  scope.vars.set(name, null);
}

/** A pipeline: each stage runs in its own sub-shell, reading the previous stage's output. */
function visitPipeline(walker: Walker, stages: Node[], scope: WalkScope, stdin: PipeInput | undefined): void {
  let input = stdin;
  for (const stage of stages) {
    const stageScope = cloneScope(scope);
    const produced: Produced = { program: programOf(walker, stage, stageScope) };
    visitStage(walker, stage, stageScope, input, produced);
    input = {
      from: produced.from ?? produced.program,
      text: produced.text,
      ...(produced.sources?.length ? { sources: produced.sources } : {}),
      ...(produced.argv ? { argv: produced.argv } : {}),
    };
  }
}

/** What a pipeline stage prints: its program, the program its data comes from and the data's sources. */
interface Produced {
  program: string;
  text?: string;
  from?: string;
  sources?: string[];
  argv?: string[];
}

/** One stage: visited like any node; a static printer's output is noted for the next stage. */
function visitStage(
  walker: Walker,
  stage: Node,
  scope: WalkScope,
  input: PipeInput | undefined,
  produced: Produced,
): void {
  const command = stage.type === "redirected_statement" ? stage.namedChildren[0] : stage;
  if (command?.type === "command") {
    const fields = commandFields(walker, command, cloneScope(scope));
    const heredoc = stage.type === "redirected_statement" ? heredocText(stage, scope, walker) : undefined;
    if (fields && !fields.some((f) => f.dynamic)) {
      produced.text = printed(
        fields.map((f) => f.value),
        heredoc ?? input?.text,
      );
      produced.argv = fields.map((f) => f.value);
    }
    if (fields) {
      const inputs = inputFiles(walker, stage, command, scope);
      const out = outputOf(fields, input, inputs, scope.cwd, walker.home);
      produced.from = out.from;
      produced.sources = out.sources;
    }
  }
  visit(walker, stage, scope, input);
}

/** The command a list ends with (`a && b` → b), when it is a plain command. */
function lastCommandOf(list: Node): Node | undefined {
  const last = list.namedChildren.at(-1);
  return last?.type === "command" ? last : undefined;
}

/** The program whose output a `$(…)` in a text is (`"$(curl -fsSL URL)"` → curl). */
function substitutedProgram(text: string): string {
  const m =
    /(?:\$\(|`)\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:sudo\s+|command\s+|env\s+)?([A-Za-z0-9_./-]+)/.exec(
      text,
    );
  return m ? path.basename(m[1] as string) : "";
}

/** Files a command reads on stdin through `<` redirections (its own, or its redirected statement's). */
function inputFiles(walker: Walker, stage: Node, command: Node, scope: WalkScope): string[] {
  const out: string[] = [];
  const redirects = [...command.namedChildren, ...(stage.id !== command.id ? stage.namedChildren : [])];
  for (const r of redirects) {
    if (r?.type !== "file_redirect") continue;
    const op = r.children.find((c) => c && !c.isNamed)?.type ?? "";
    if (op !== "<") continue;
    const target = r.namedChildren.filter((c) => c && c.type !== "file_descriptor").at(-1);
    if (!target) continue;
    const field = wordText(target, expandScope(walker, scope));
    out.push(field.dynamic || scope.cwd === undefined ? field.value : path.resolve(scope.cwd, field.value));
  }
  return out;
}

/** The program a pipeline stage runs (for `curl … | sh`). */
function programOf(walker: Walker, node: Node, scope: WalkScope): string {
  const command = node.type === "command" ? node : node.descendantsOfType("command")[0];
  const name = command?.childForFieldName("name");
  if (!name) return "";
  const fields = expandWord(name, expandScope(walker, cloneScope(scope)));
  return path.basename(fields[0]?.value ?? "");
}

function bare(text: string, scope: WalkScope): SimpleCommand {
  return {
    argv: [],
    dynamic: [],
    env: { ...scope.env },
    stdinFrom: "",
    via: scope.via,
    text,
    cwd: scope.cwd,
    redirects: [],
    codeFrom: [],
    undecided: "",
  };
}

/** `name=value` (or `name+=value`): into `target` (the line's scope, or one command's own environment). */
function assign(walker: Walker, node: Node, scope: WalkScope, target: WalkScope): void {
  const name = node.childForFieldName("name")?.text ?? node.namedChildren[0]?.text ?? "";
  const valueNode = node.childForFieldName("value");
  const appends = /^[A-Za-z_][A-Za-z0-9_]*\+=/.test(node.text);
  let field: Field = { value: "", dynamic: false };
  if (valueNode)
    field =
      valueNode.type === "array"
        ? { value: valueNode.text, dynamic: true }
        : wordText(valueNode, expandScope(walker, scope));
  let value: string | null = field.dynamic ? null : field.value;
  if (appends) {
    const old = variable(expandScope(walker, scope), name);
    value = old === null || value === null ? null : old + value;
  }
  target.vars.set(name, value);
  target.env[name] = value ?? field.value;
}

function visitDeclaration(walker: Walker, node: Node, scope: WalkScope): void {
  visitSubstitutions(walker, node, scope);
  const keyword = node.child(0)?.text ?? "";
  const argv = [keyword];
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "variable_assignment") {
      assign(walker, child, scope, scope);
      argv.push(
        `${child.childForFieldName("name")?.text ?? ""}=${scope.env[child.childForFieldName("name")?.text ?? ""] ?? ""}`,
      );
    } else argv.push(...expandWord(child, expandScope(walker, scope)).map((f) => f.value));
  }
  walker.emit({ ...bare(node.text, scope), argv, dynamic: argv.map(() => false) }, scope);
}

/** A redirected statement: its body with the redirections applied, and what a here-doc's line goes on to run. */
function visitRedirected(walker: Walker, node: Node, scope: WalkScope, stdin: PipeInput | undefined): void {
  const [body, ...redirects] = node.namedChildren.filter((c): c is Node => c !== null);
  if (!body) return;
  const writes: Write[] = [];
  let input = stdin;
  // `cmd < file`: the command reads the file on stdin.
  const fromFiles = body.type === "command" ? inputFiles(walker, node, node, scope) : [];
  if (fromFiles.length)
    input = {
      from: input?.from ?? "",
      ...(input?.text !== undefined ? { text: input.text } : {}),
      sources: [...(input?.sources ?? []), ...fromFiles],
    };
  // tree-sitter-bash nests what follows a here-doc's start (`| sh`, `&& cmd`, `> file`) inside the redirect.
  const continuation: { op: string; node: Node }[] = [];
  const collect = (redirect: Node) => {
    if (redirect.type === "file_redirect") {
      const w = redirectWrite(walker, redirect, scope);
      if (w) writes.push(w);
      return;
    }
    if (redirect.type === "herestring_redirect" || redirect.type === "heredoc_redirect") {
      const text = heredocText(node, scope, walker);
      input = { from: "", text };
      if (redirect.type === "heredoc_redirect") {
        let op = "";
        for (const c of redirect.children) {
          if (!c) continue;
          if (!c.isNamed && ["|", "&&", "||", ";", "&", "|&"].includes(c.type)) op = c.type;
          else if (c.type === "file_redirect") collect(c);
          else if (c.isNamed && !c.type.startsWith("heredoc")) {
            // `cat <<EOF | sh`: the pipe is the first (anonymous) child of the nested pipeline node.
            const pipeOp = c.type === "pipeline" && !c.child(0)?.isNamed ? (c.child(0)?.type ?? "") : "";
            continuation.push({ op: pipeOp || op, node: c });
          }
        }
      }
    }
  };
  // `cmd > >(sh)`: the process substitution reads what the body prints.
  const bodyFields = body.type === "command" ? commandFields(walker, body, cloneScope(scope)) : undefined;
  const printedBy = bodyFields ? outputOf(bodyFields, stdin, [], scope.cwd, walker.home) : undefined;
  for (const r of redirects) {
    // A here-doc's body runs its `$(…)` when its delimiter is unquoted; what follows it is visited below.
    if (r.type === "heredoc_redirect")
      for (const b of r.namedChildren) if (b?.type === "heredoc_body") visitSubstitutions(walker, b, scope);
    if (r.type !== "heredoc_redirect")
      visitSubstitutions(walker, r, scope, printedBy && { from: printedBy.from, sources: printedBy.sources });
    collect(r);
  }
  if (body.type === "command") visitCommand(walker, body, scope, input, writes);
  else if (body.type === "list" && lastCommandOf(body)) {
    // tree-sitter-bash reads `a && b > f` as a redirection of the list; bash redirects b alone.
    const last = lastCommandOf(body) as Node;
    for (const part of body.namedChildren)
      if (part && part.id !== last.id) visit(walker, part, scope, undefined);
    visitCommand(walker, last, scope, input, writes);
  } else {
    // A compound statement's redirections apply to everything inside it.
    visit(walker, body, scope, input);
    if (writes.length) walker.emit({ ...bare(node.text, scope), redirects: writes }, scope);
  }
  for (const { op, node: next } of continuation) {
    if (op === "|" || op === "|&") {
      const producer = body.type === "command" ? programOf(walker, body, scope) : "";
      const fields = body.type === "command" ? commandFields(walker, body, cloneScope(scope)) : undefined;
      const text =
        fields && !fields.some((f) => f.dynamic)
          ? printed(
              fields.map((f) => f.value),
              input?.text,
            )
          : undefined;
      const stages =
        next.type === "pipeline" ? next.namedChildren.filter((c): c is Node => c !== null) : [next];
      visitPipeline(walker, stages, scope, { from: producer, text });
    } else visit(walker, next, scope, undefined);
  }
}

/** The file a redirection writes (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&` to a name), if any. */
function redirectWrite(walker: Walker, redirect: Node, scope: WalkScope): Write | undefined {
  const op = redirect.children.find((c) => c && !c.isNamed)?.type ?? "";
  if (!/^(>|>>|>\||&>|&>>|<>|>&)$/.test(op)) return undefined;
  const target = redirect.namedChildren.filter((c) => c && c.type !== "file_descriptor").at(-1);
  if (!target) return undefined;
  // `>&2`, `2>&1`: a descriptor, not a file.
  if (op === ">&" && /^\d+-?$|^-$/.test(target.text)) return undefined;
  const field = wordText(target, expandScope(walker, scope));
  return {
    path: field.value,
    kind: "write",
    dynamic: field.dynamic,
    ...(op.endsWith(">>") ? { append: true } : {}),
  };
}

/** A command node: its own assignments, its fields, its redirections; then its wrappers are looked through. */
function visitCommand(
  walker: Walker,
  node: Node,
  scope: WalkScope,
  stdin: PipeInput | undefined,
  writes: Write[],
): void {
  const own = cloneScope(scope);
  const redirects = [...writes];
  let input = stdin;
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "variable_assignment") assign(walker, child, own, own);
    else if (child.type === "file_redirect") {
      const w = redirectWrite(walker, child, own);
      if (w) redirects.push(w);
    } else if (child.type === "herestring_redirect") {
      const word = child.namedChildren[0];
      const field = word ? wordText(word, expandScope(walker, own)) : { value: "", dynamic: true };
      const sources = sourcesInText(word?.text ?? "", scope.cwd, walker.home);
      input = {
        from: field.dynamic ? substitutedProgram(word?.text ?? "") : "",
        text: field.dynamic ? undefined : `${field.value}\n`,
        ...(sources.length ? { sources } : {}),
      };
    }
  }
  const fromFiles = inputFiles(walker, node, node, scope);
  if (fromFiles.length)
    input = { from: input?.from ?? "", sources: [...(input?.sources ?? []), ...fromFiles] };
  const fields = commandFields(walker, node, own) ?? [];
  // Prefix assignments are this command's environment; its arguments expand with the line's variables.
  const command: SimpleCommand = {
    argv: fields.map((f) => f.value),
    dynamic: fields.map((f) => f.dynamic),
    env: own.env,
    stdinFrom: input?.from ?? "",
    ...(input
      ? {
          stdin: {
            from: input.from,
            ...(input.text !== undefined ? { text: input.text } : {}),
            ...(input.sources?.length ? { sources: input.sources } : {}),
            ...(input.argv ? { argv: input.argv } : {}),
          },
        }
      : {}),
    via: scope.via,
    text: node.text,
    cwd: scope.cwd,
    ...(scope.oldCwd !== undefined ? { oldCwd: scope.oldCwd } : {}),
    redirects,
    codeFrom: [],
    undecided: "",
  };
  // Commands inside the name, arguments and assignments (`$(…)`, `<(…)`) run too; `>(…)` reads its output.
  const printedBy = outputOf(fields, input, [], scope.cwd, walker.home);
  visitSubstitutions(walker, node, scope, { from: printedBy.from, sources: printedBy.sources });
  if (fields.length === 0) {
    walker.emit(command, scope);
    return;
  }
  applyLineEffects(command, scope, walker.home);
  walker.emit(command, scope);
}

/** What a command changes for the rest of the line: `cd`, `export`, `alias`, functions. */
function applyLineEffects(command: SimpleCommand, scope: WalkScope, home: string): void {
  const [name, ...args] = command.argv;
  if (name === "cd" || name === "pushd") {
    const target = args.find((a) => !a.startsWith("-") || a === "-");
    const dynamic = command.dynamic.slice(1).some(Boolean);
    const before = scope.cwd;
    if (dynamic) scope.cwd = undefined;
    else if (target === "-") scope.cwd = scope.oldCwd;
    else if (target === undefined)
      scope.cwd = variable({ vars: scope.vars, home, substitute: () => undefined }, "HOME") ?? undefined;
    else
      scope.cwd =
        scope.cwd === undefined && !path.isAbsolute(target)
          ? undefined
          : path.resolve(scope.cwd ?? "/", target);
    if (before === undefined) delete scope.oldCwd;
    else scope.oldCwd = before;
  } else if (name === "popd") scope.cwd = undefined;
  else if (name === "alias") {
    for (const a of args) {
      const eq = a.indexOf("=");
      if (eq > 0) scope.aliases.set(a.slice(0, eq), a.slice(eq + 1));
    }
  } else if (name === "unalias") for (const a of args) scope.aliases.delete(a);
  else if (name === "read" || name === "mapfile" || name === "readarray") {
    for (const a of args) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(a)) scope.vars.set(a, null);
  }
}
