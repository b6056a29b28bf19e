/**
 * A parsed command line → every simple command it would run, with the fields bash would pass after its
 * static expansions (words.ts), the variables and working directory in effect, what each reads on stdin
 * (a here-doc, a here-string, another command's output) and the files its redirections write. Sub-shells,
 * `$(…)`, pipelines, lists, functions, loops and branches are walked; wrappers (wrappers.ts) are looked
 * through at any depth. Whatever cannot be decided within the budget is said in `undecided`, never dropped.
 * The records are in model.ts, the scope's changes in scope.ts, a node's static values in static-values.ts.
 */
import type { Node } from "web-tree-sitter";
import { outputOf, sourcesInText } from "./flows.js";
import {
  MAX_DEPTH,
  type PipeInput,
  type SimpleCommand,
  type WalkScope,
  type Walker,
  type Write,
} from "./model.js";
import { applyLineEffects, bare, cloneScope, merge, undecided } from "./scope.js";
import {
  commandFields,
  expandScope,
  heredocText,
  inputFiles,
  printed,
  programOf,
  redirectWrite,
  substitutedProgram,
} from "./static-values.js";
import { expandWord, variable, wordText, type Field } from "./words.js";

/** Iterations of a `for` loop evaluated with each static value. */
const MAX_LOOP_VALUES = 16;

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
