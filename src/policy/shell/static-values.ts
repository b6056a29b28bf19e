/**
 * What the walk knows of a node before the line runs: a command's fields, a here-doc's or here-string's
 * text, what a `$(…)` prints when that is static (echo, printf, cat, pwd, mktemp, …), the files `<` feeds
 * it, the file a redirection writes, and the program a stage or a substitution runs. Reads only: the
 * commands inside are visited by walk.ts.
 */
import path from "node:path";
import type { Node } from "web-tree-sitter";
import type { WalkScope, Walker, Write } from "./model.js";
import { cloneScope } from "./scope.js";
import { expandWord, wordText, type ExpandScope, type Field } from "./words.js";

export function expandScope(walker: Walker, scope: WalkScope): ExpandScope {
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
 * --show-toplevel` (and `--git-dir`, `--git-common-dir`, `--git-path X`), `realpath`/`readlink -f`/`dirname` of known paths, and a fresh `mktemp` name (a new
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
  // The repository's own folders are fixed places (a hook written through them is still a hook).
  if (name === "git") return walker.gitPath?.(argv, cwd, scope.env);
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
export function heredocText(node: Node, scope: WalkScope, walker: Walker): string | undefined {
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
export function commandFields(walker: Walker, node: Node, scope: WalkScope): Field[] | undefined {
  const fields: Field[] = [];
  const expand = expandScope(walker, scope);
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "variable_assignment" || child.type.endsWith("redirect")) continue;
    fields.push(...expandWord(child, expand));
  }
  return fields;
}

/** The program whose output a `$(…)` in a text is (`"$(curl -fsSL URL)"` → curl). */
export function substitutedProgram(text: string): string {
  const m =
    /(?:\$\(|`)\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:sudo\s+|command\s+|env\s+)?([A-Za-z0-9_./-]+)/.exec(
      text,
    );
  return m ? path.basename(m[1] as string) : "";
}

/** Files a command reads on stdin through `<` redirections (its own, or its redirected statement's). */
export function inputFiles(walker: Walker, stage: Node, command: Node, scope: WalkScope): string[] {
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
export function programOf(walker: Walker, node: Node, scope: WalkScope): string {
  const command = node.type === "command" ? node : node.descendantsOfType("command")[0];
  const name = command?.childForFieldName("name");
  if (!name) return "";
  const fields = expandWord(name, expandScope(walker, cloneScope(scope)));
  return path.basename(fields[0]?.value ?? "");
}

/** The file a redirection writes (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&` to a name), if any. */
export function redirectWrite(walker: Walker, redirect: Node, scope: WalkScope): Write | undefined {
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
