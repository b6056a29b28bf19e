/**
 * Shell words → the fields bash would pass to a program, where that is known without running anything:
 * quote removal, `$'…'` escapes, brace expansion, tilde, parameters whose value the line set statically
 * (`a=git; $a`), `${IFS}`, `$(echo …)` / `$(printf …)` / `$(cat <<EOF …)` with static text, and field
 * splitting of unquoted expansions. What cannot be known (another program's output, an unset variable, `$1`)
 * is kept as written and marked dynamic, so the checks can tell "says X" from "might say anything". Pure.
 */
import type { Node } from "web-tree-sitter";

/** One field of a command: its text, and whether part of it is only known when the line runs. */
export interface Field {
  value: string;
  dynamic: boolean;
}

/** Variables as the line has set them so far: a string is a static value, null an unknown one. */
export type Vars = Map<string, string | null>;

export interface ExpandScope {
  vars: Vars;
  home: string;
  /** The working directory at this point of the line (`$PWD`, `~+`), when known. */
  cwd?: string;
  /** The directory before the line's last `cd` (`$OLDPWD`, `~-`); unknown before any `cd` of the line. */
  oldCwd?: string;
  /** The text a static command substitution would print, when its command is echo/printf/cat of static text. */
  substitute(node: Node): string | undefined;
}

const DEFAULT_IFS = " \t\n";
/** In a variable's value, a break between fields that no quoting joins ("$@" is one field per argument). */
export const FIELD_BREAK = "\u0001";
/** More fields than this from one word (brace expansion) is treated as unknown: nobody spells a command so. */
const MAX_FIELDS = 256;

/** A piece of a word: literal text (quoted or not), or an expansion with its value (null: unknown). */
type Part =
  | { kind: "text"; text: string; quoted: boolean }
  | { kind: "expansion"; value: string | null; quoted: boolean; source: string };

/** The value of a variable in scope: IFS and HOME have defaults; anything else not set by the line is unknown. */
export function variable(scope: ExpandScope, name: string): string | null {
  if (scope.vars.has(name)) return scope.vars.get(name) ?? null;
  if (name === "IFS") return DEFAULT_IFS;
  if (name === "HOME") return scope.home;
  if (name === "PWD") return scope.cwd ?? null;
  if (name === "OLDPWD") return scope.oldCwd ?? null;
  return null;
}

/**
 * Tilde expansion of a word's start, as bash does: `~` and `~/…` (home), `~+` (the working directory), `~-`
 * (the previous one). `value` is undefined when the prefix names a directory only known when the line runs.
 */
export function tilde(word: string, scope: ExpandScope): { value: string | undefined; changed: boolean } {
  const m = /^~([+-]?)(?=\/|$)/.exec(word);
  if (!m) return { value: word, changed: false };
  const dir = m[1] === "" ? scope.home : m[1] === "+" ? scope.cwd : scope.oldCwd;
  return { value: dir === undefined ? undefined : dir + word.slice(m[0].length), changed: true };
}

/** `$'…'` → its text, escapes decoded as bash does. */
export function ansiC(body: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== "\\" || i + 1 >= body.length) {
      out += c;
      continue;
    }
    const n = body[++i] as string;
    const simple: Record<string, string> = {
      n: "\n",
      t: "\t",
      r: "\r",
      a: "\x07",
      b: "\b",
      e: "\x1b",
      E: "\x1b",
      f: "\f",
      v: "\v",
      "\\": "\\",
      "'": "'",
      '"': '"',
      "?": "?",
    };
    if (n in simple) out += simple[n];
    else if (n === "x" || n === "u" || n === "U") {
      const max = n === "x" ? 2 : n === "u" ? 4 : 8;
      let hex = "";
      while (hex.length < max && /[0-9a-fA-F]/.test(body[i + 1] ?? "")) hex += body[++i];
      out += hex ? String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff)) : `\\${n}`;
    } else if (/[0-7]/.test(n)) {
      let oct = n;
      while (oct.length < 3 && /[0-7]/.test(body[i + 1] ?? "")) oct += body[++i];
      out += String.fromCharCode(parseInt(oct, 8) & 0xff);
    } else if (n === "c" && i + 1 < body.length)
      out += String.fromCharCode((body[++i] as string).charCodeAt(0) & 0x1f);
    else out += `\\${n}`;
  }
  return out;
}

/** The text inside double quotes after its escapes (`\$`, `` \` ``, `\"`, `\\`, line continuations). */
function doubleQuoted(text: string): string {
  return text.replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
}

function expansionValue(node: Node, scope: ExpandScope): string | null {
  const names = node.namedChildren.filter(
    (c) => c?.type === "variable_name" || c?.type === "special_variable_name",
  );
  const name = names[0]?.text;
  if (node.type === "simple_expansion") {
    if (!name) return null;
    if (names[0]?.type === "variable_name" || name === "@" || name === "*") return variable(scope, name);
    return null;
  }
  // ${name}: the plain form, and ${name:-word} / ${name-word} when name is known and non-empty.
  const inner = node.text.slice(2, -1);
  if (name && inner === name) return variable(scope, name);
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(:?[-=?+])/.exec(inner);
  if (m && name && m[1] === name) {
    const value = variable(scope, name);
    if (value === null) return null;
    const op = m[2] as string;
    if (op.endsWith("+")) return null;
    if (value !== "" || !op.startsWith(":")) return value;
  }
  return null;
}

/**
 * The parts of a node made of named children (parts of their own) with literal source text around
 * them, between `start` and `end`: a double-quoted string's inside, a concatenation. `literal` reads
 * that text (a double-quoted string unescapes it); one walk, so both keep the text between children.
 */
function partsAround(
  node: Node,
  start: number,
  end: number,
  scope: ExpandScope,
  quoted: boolean,
  out: Part[],
  literal: (text: string) => string,
): void {
  const text = (from: number, to: number) =>
    literal(node.text.slice(from - node.startIndex, to - node.startIndex));
  let at = start;
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.startIndex > at) out.push({ kind: "text", text: text(at, child.startIndex), quoted });
    partsOf(child, scope, quoted, out);
    at = child.endIndex;
  }
  if (at < end) out.push({ kind: "text", text: text(at, end), quoted });
}

/** A word node → its parts, in order. */
function partsOf(node: Node, scope: ExpandScope, quoted: boolean, out: Part[]): void {
  switch (node.type) {
    case "word":
    case "number":
    case "special_variable_name":
      out.push({ kind: "text", text: node.text, quoted });
      return;
    case "raw_string":
      out.push({ kind: "text", text: node.text.slice(1, -1), quoted: true });
      return;
    case "ansi_c_string":
      out.push({ kind: "text", text: ansiC(node.text.slice(2, -1)), quoted: true });
      return;
    case "string_content":
      out.push({ kind: "text", text: doubleQuoted(node.text), quoted: true });
      return;
    case "string":
    case "translated_string": {
      // Literal text between the named children (a `$` on its own, say) is kept too.
      const open = node.type === "translated_string" ? 2 : 1;
      const before = out.length;
      partsAround(node, node.startIndex + open, node.endIndex - 1, scope, true, out, doubleQuoted);
      // "" is one empty field, never none.
      if (out.length === before) out.push({ kind: "text", text: "", quoted: true });
      return;
    }
    case "simple_expansion":
    case "expansion":
      out.push({ kind: "expansion", value: expansionValue(node, scope), quoted, source: node.text });
      return;
    case "command_substitution": {
      const printed = scope.substitute(node);
      out.push({
        kind: "expansion",
        value: printed === undefined ? null : printed.replace(/\n+$/, ""),
        quoted,
        source: node.text,
      });
      return;
    }
    case "concatenation":
    case "command_name":
      partsAround(node, node.startIndex, node.endIndex, scope, quoted, out, (text) => text);
      return;
    case "brace_expression": {
      // {1..3} / {a..e}: the sequence, as separate words (handled by braces() on the text form).
      out.push({ kind: "text", text: node.text, quoted });
      return;
    }
    default:
      // arithmetic, process substitution, anything else: only known when it runs.
      out.push({ kind: "expansion", value: null, quoted, source: node.text });
  }
}

// ---- brace expansion over a word with quoted and expanded parts -----------------------------------

/** Marks a character that came from quotes or an expansion, so brace expansion leaves it alone. */
const PLACEHOLDER_BASE = 0xe000;

/** Bash's brace expansion of one word: `a{b,c}d` → abd acd; `{1..3}`; nested; `\{` literal. */
export function braces(word: string, limit = MAX_FIELDS): string[] | undefined {
  const results: string[] = [];
  const expand = (w: string): boolean => {
    const group = findGroup(w);
    if (!group) {
      results.push(w);
      return results.length <= limit;
    }
    const { start, end, alternatives } = group;
    for (const alt of alternatives) if (!expand(w.slice(0, start) + alt + w.slice(end + 1))) return false;
    return true;
  };
  return expand(word) ? results : undefined;
}

/** The first `{…}` that brace-expands (has a top-level comma or is a sequence), with its alternatives. */
function findGroup(w: string): { start: number; end: number; alternatives: string[] } | undefined {
  for (let start = 0; start < w.length; start++) {
    const c = w[start];
    if (c === "\\") {
      start++;
      continue;
    }
    if (c !== "{") continue;
    let depth = 0;
    const commas: number[] = [];
    for (let i = start; i < w.length; i++) {
      const d = w[i];
      if (d === "\\") {
        i++;
        continue;
      }
      if (d === "{") depth++;
      else if (d === "}") {
        depth--;
        if (depth === 0) {
          const body = w.slice(start + 1, i);
          if (commas.length > 0) {
            const alternatives: string[] = [];
            let from = start + 1;
            for (const comma of commas) {
              alternatives.push(w.slice(from, comma));
              from = comma + 1;
            }
            alternatives.push(w.slice(from, i));
            return { start, end: i, alternatives };
          }
          const seq = sequence(body);
          if (seq) return { start, end: i, alternatives: seq };
          break;
        }
      } else if (d === "," && depth === 1) commas.push(i);
    }
  }
  return undefined;
}

/** `1..5`, `a..e`, `1..10..2` → the sequence (capped). */
function sequence(body: string): string[] | undefined {
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!m) return undefined;
  const [a, b] = [m[1] as string, m[2] as string];
  const numeric = /\d/.test(a);
  if (numeric !== /\d/.test(b)) return undefined;
  const from = numeric ? Number(a) : a.charCodeAt(0);
  const to = numeric ? Number(b) : b.charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(m[3] ?? 1)));
  const out: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) {
    out.push(numeric ? String(v) : String.fromCharCode(v));
    if (out.length > MAX_FIELDS) return undefined;
  }
  return out;
}

function splitIfs(value: string, ifs: string): string[] {
  if (ifs === "") return [value];
  const fields: string[] = [];
  let current = "";
  let has = false;
  for (const ch of value) {
    if (ifs.includes(ch)) {
      if (has || !/\s/.test(ch)) fields.push(current);
      current = "";
      has = false;
    } else {
      current += ch;
      has = true;
    }
  }
  if (has) fields.push(current);
  return fields;
}

/**
 * A word node → its fields, as bash would pass them: brace expansion, tilde, parameter and static command
 * substitution, word splitting of unquoted expansions, quote removal. (Globs are left as written.)
 */
export function expandWord(node: Node, scope: ExpandScope): Field[] {
  const parts: Part[] = [];
  partsOf(node, scope, false, parts);
  return expandParts(parts, scope);
}

function expandParts(parts: Part[], scope: ExpandScope): Field[] {
  // 1. One string for brace expansion: unquoted text as written, quoted text and expansions as placeholders.
  let text = "";
  let suspicious = false;
  const held: (Extract<Part, { kind: "expansion" }> | { kind: "text"; text: string })[] = [];
  for (const part of parts) {
    if (part.kind === "text" && !part.quoted) {
      // A literal character in the placeholder range would be read as one: the field is then not trusted.
      if (/[\ue000-\uf8ff]/.test(part.text)) suspicious = true;
      text += part.text;
      continue;
    }
    held.push(part.kind === "text" ? { kind: "text", text: part.text } : part);
    text += String.fromCharCode(PLACEHOLDER_BASE + held.length - 1);
  }
  const words = braces(text);
  if (!words) return [{ value: text, dynamic: true }];
  const ifs = variable(scope, "IFS") ?? DEFAULT_IFS;
  const anyQuoted = parts.some((p) => p.quoted);
  const fields: Field[] = [];
  for (const word of words) {
    // 2. Tilde at the start of an unquoted word (`~+`, `~-` too: the shell knows them before the line runs).
    const t = tilde(word, scope);
    const w = t.value ?? word;
    // 3. Substitute, split unquoted expansions at IFS, remove the remaining backslash escapes.
    let current = "";
    let dynamic = suspicious || t.value === undefined;
    let open = anyQuoted;
    const close = () => {
      if (open || current !== "") fields.push({ value: current, dynamic });
      current = "";
      dynamic = suspicious || t.value === undefined;
      open = false;
    };
    for (let i = 0; i < w.length; i++) {
      const ch = w[i] as string;
      if (ch === "\\" && i + 1 < w.length) {
        const next = w[++i] as string;
        if (next !== "\n") current += next;
        open = true;
        continue;
      }
      const index = ch.charCodeAt(0) - PLACEHOLDER_BASE;
      const part = index >= 0 && index < held.length ? held[index] : undefined;
      if (!part) {
        current += ch;
        open = true;
      } else if (part.kind === "text") {
        current += part.text;
        open = true;
      } else if (part.value === null) {
        current += part.source;
        dynamic = true;
        open = true;
      } else if (part.quoted) {
        const pieces = part.value.split(FIELD_BREAK);
        pieces.forEach((piece, j) => {
          if (j > 0) close();
          current += piece;
          open = true;
        });
        // "$@" with no arguments is no field at all.
        if (part.value === "" && part.source.includes("@") && current === "") open = false;
      } else {
        const pieces = splitIfs(part.value.split(FIELD_BREAK).join(ifs[0] ?? " "), ifs);
        const breaksBefore = part.value !== "" && ifs.includes(part.value[0] as string);
        const breaksAfter = part.value !== "" && ifs.includes(part.value.at(-1) as string);
        pieces.forEach((piece, j) => {
          if (j > 0 || breaksBefore) close();
          current += piece;
          if (piece !== "") open = true;
        });
        if (breaksAfter) close();
      }
    }
    close();
    if (fields.length > MAX_FIELDS) return [{ value: text, dynamic: true }];
  }
  return fields;
}

/** The static text of a word with no splitting (an assignment's value, a redirection target). */
export function wordText(node: Node, scope: ExpandScope): Field {
  const parts: Part[] = [];
  partsOf(node, scope, true, parts);
  let value = "";
  let dynamic = false;
  for (const p of parts) {
    if (p.kind === "text") value += p.quoted ? p.text : p.text.replace(/\\(.)/gs, "$1");
    else if (p.value === null) {
      value += p.source;
      dynamic = true;
    } else value += p.value;
  }
  // Unquoted literal text keeps its backslash escapes in partsOf; an assignment's tilde expands too.
  if (node.type === "word") {
    const t = tilde(value, scope);
    if (t.value === undefined) dynamic = true;
    else value = t.value;
  }
  return { value, dynamic };
}
