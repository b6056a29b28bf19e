/**
 * The call sites of tokenized inline code (`name(args)`, Perl and Ruby's `name arg, arg`) with their
 * receivers, and each argument's value as far as the text says: a literal, a list, a concatenation, a
 * `.join`/`.split`, or a known path expression (the home folder, the working directory); else "only known
 * when it runs". Pure.
 */
import path from "node:path";
import type { Token, Value } from "./inline-tokens.js";

/** Placeholder words for values the checks resolve: the home folder and the working directory. */
export const HOME_WORD = "\u0000HOME";
export const CWD_WORD = "\u0000CWD";
/** A variable no line sets: an argv element only known when the code runs becomes a dynamic field. */
export const DYNAMIC_WORD = '"$__mcq_dynamic"';

const OPEN: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/** The index just past the bracket group starting at `i` (tokens[i] is an opening bracket). */
function groupEnd(tokens: Token[], i: number): number {
  let depth = 0;
  for (let j = i; j < tokens.length; j++) {
    const t = tokens[j] as Token;
    if (t.k !== "p") continue;
    if (t.v in OPEN) depth++;
    else if (t.v === ")" || t.v === "]" || t.v === "}") {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return tokens.length;
}

/** Splits tokens at top-level commas. */
function splitArgs(tokens: Token[]): Token[][] {
  const out: Token[][] = [[]];
  for (let j = 0; j < tokens.length; j++) {
    const t = tokens[j] as Token;
    if (t.k === "p" && t.v in OPEN) {
      const end = groupEnd(tokens, j);
      (out.at(-1) as Token[]).push(...tokens.slice(j, end));
      j = end - 1;
      continue;
    }
    if (t.k === "p" && t.v === ",") out.push([]);
    else (out.at(-1) as Token[]).push(t);
  }
  return out.filter((a) => a.length > 0);
}

const text = (tokens: Token[]) =>
  tokens.map((t) => (t.k === "str" ? JSON.stringify(t.v) : t.k === "list" ? "[…]" : t.v)).join("");

/** Expressions that name the home folder or the working directory, in the common languages. */
const HOME_EXPR =
  /^(os\.path\.expanduser\("~"\)|Path\.home\(\)|pathlib\.Path\.home\(\)|os\.homedir\(\)|require\("os"\)\.homedir\(\)|Dir\.home|ENV\["HOME"\]|ENV\.fetch\("HOME"\)|\$ENV\{HOME\}|os\.environ\["HOME"\]|os\.getenv\("HOME"\)|process\.env\.HOME|process\.env\["HOME"\]|getenv\("HOME"\)|\$_SERVER\["HOME"\]|File\.expand_path\("~"\))$/;
const CWD_EXPR =
  /^(os\.getcwd\(\)|Path\.cwd\(\)|pathlib\.Path\.cwd\(\)|process\.cwd\(\)|Dir\.pwd|getcwd\(\)|os\.curdir|Cwd::cwd\(\)|cwd\(\)|__dir__|Deno\.cwd\(\))$/;

/** An argument's value: a literal, a list, a concatenation or a known path expression; else dynamic. */
function evaluate(tokens: Token[]): Value {
  if (tokens.length === 0) return { kind: "dyn", text: "" };
  // keyword argument (Python `mode="w"`, Ruby/Perl `key => v`)
  if (
    tokens.length >= 3 &&
    tokens[0]?.k === "id" &&
    tokens[1]?.k === "p" &&
    (tokens[1].v === "=" || tokens[1].v === ":")
  ) {
    return { kind: "kw", name: tokens[0].v, value: evaluate(tokens.slice(2)) };
  }
  const t0 = tokens[0] as Token;
  const whole = text(tokens).replace(/'/g, '"');
  if (HOME_EXPR.test(whole)) return { kind: "str", v: HOME_WORD, dyn: false };
  if (CWD_EXPR.test(whole)) return { kind: "str", v: CWD_WORD, dyn: false };
  // os.path.expanduser("~/x"), Path("x"), File.expand_path("~/x"), path.join(...) of known parts
  const call =
    /^(os\.path\.expanduser|Path|pathlib\.Path|File\.expand_path|path\.resolve|path\.join|os\.path\.join|os\.path\.abspath|File\.join|realpath|os\.path\.realpath)\((.*)\)$/.exec(
      whole,
    );
  if (call && t0.k === "id") {
    const open = tokens.findIndex((t) => t.k === "p" && t.v === "(");
    const inner = splitArgs(tokens.slice(open + 1, groupEnd(tokens, open) - 1)).map(evaluate);
    if (inner.length > 0 && inner.every((v) => v.kind === "str" && !v.dyn)) {
      const parts = inner.map((v) => (v as { v: string }).v);
      const joined = parts.length === 1 ? (parts[0] as string) : path.posix.join(...parts);
      const expanded =
        /expand/.test(call[1] as string) && /^~(\/|$)/.test(joined) ? HOME_WORD + joined.slice(1) : joined;
      return { kind: "str", v: expanded, dyn: false };
    }
    return { kind: "dyn", text: whole };
  }
  if (t0.k === "list" && tokens.length === 1) return { kind: "list", items: t0.items };
  if (t0.k === "p" && (t0.v === "[" || t0.v === "(") && groupEnd(tokens, 0) === tokens.length) {
    const inner = splitArgs(tokens.slice(1, -1)).map(evaluate);
    // ["a", "b"].join(" ") is handled below; a bare list is its items.
    return { kind: "list", items: inner };
  }
  if (t0.k === "p" && (t0.v === "[" || t0.v === "(")) {
    const end = groupEnd(tokens, 0);
    const rest = text(tokens.slice(end));
    const list = evaluate(tokens.slice(0, end));
    const join = /^\.join\((.*)\)$/.exec(rest);
    if (list.kind === "list" && join) {
      const sep = tokens.slice(end).find((t) => t.k === "str");
      const items = list.items.map((v) => (v.kind === "str" ? v.v : DYNAMIC_WORD));
      return {
        kind: "str",
        v: items.join(sep && sep.k === "str" ? sep.v : " "),
        dyn: list.items.some((v) => v.kind !== "str" || v.dyn),
      };
    }
    return { kind: "dyn", text: whole };
  }
  if (t0.k === "str") {
    // "a" + "b", 'a' . 'b', "git commit -n".split()
    let v = t0.v;
    let dyn = t0.dyn;
    let j = 1;
    while (
      j + 1 < tokens.length &&
      tokens[j]?.k === "p" &&
      ["+", "."].includes((tokens[j] as { v: string }).v) &&
      tokens[j + 1]?.k === "str"
    ) {
      const next = tokens[j + 1] as { v: string; dyn: boolean };
      v += next.v;
      dyn ||= next.dyn;
      j += 2;
    }
    if (j === tokens.length) return { kind: "str", v, dyn };
    const rest = text(tokens.slice(j));
    if (/^\.split\(\)$|^\.split\(" "\)$|^\.split$/.test(rest.replace(/'/g, '"')))
      return {
        kind: "list",
        items: v
          .split(/\s+/)
          .filter(Boolean)
          .map((w) => ({ kind: "str", v: w, dyn })),
      };
    return { kind: "dyn", text: whole };
  }
  return { kind: "dyn", text: whole };
}

export interface Call {
  /** The called name and its receiver (`subprocess.run` → ["subprocess", "run"]). */
  names: string[];
  args: Value[];
  /** The tokens of a receiver call (`Path("x")` in `Path("x").write_text(...)`). */
  receiver?: Value;
}

/** Call sites: `name(args)`, and Perl/Ruby's `name arg, arg` without parentheses. */
export function callsIn(tokens: Token[], lang: string): Call[] {
  const out: Call[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.k !== "id") continue;
    const next = tokens[i + 1];
    // The qualified name: ids joined by . :: ->
    const names = [t.v];
    let j = i - 1;
    let receiver: Value | undefined;
    while (j >= 1 && tokens[j]?.k === "p" && [".", "::", "->"].includes((tokens[j] as { v: string }).v)) {
      const before = tokens[j - 1] as Token;
      if (before.k === "id") {
        names.unshift(before.v);
        j -= 2;
      } else if (before.k === "p" && before.v === ")") {
        // a receiver call: find its start
        let depth = 0;
        let k = j - 1;
        for (; k >= 0; k--) {
          const tk = tokens[k] as Token;
          if (tk.k === "p" && tk.v === ")") depth++;
          else if (tk.k === "p" && tk.v === "(") {
            depth--;
            if (depth === 0) break;
          }
        }
        const fn = tokens[k - 1];
        if (fn?.k === "id") {
          receiver = evaluate(tokens.slice(k - 1, j));
          names.unshift(fn.v);
        }
        break;
      } else break;
    }
    if (next?.k === "p" && next.v === "(") {
      const end = groupEnd(tokens, i + 1);
      out.push({
        names,
        args: splitArgs(tokens.slice(i + 2, end - 1)).map(evaluate),
        ...(receiver ? { receiver } : {}),
      });
    } else if (
      (lang === "perl" || lang === "ruby") &&
      next !== undefined &&
      (next.k === "str" || next.k === "list" || (next.k === "p" && next.v === "{")) &&
      (tokens[i - 1] === undefined || tokens[i - 1]?.k === "p")
    ) {
      // `exec "git", "commit"`, `system 'x'`, `exec { "git" } "git", "commit"` (the block names the program)
      let from = i + 1;
      if (next.k === "p" && next.v === "{") from = groupEnd(tokens, i + 1);
      let end = from;
      let depth = 0;
      for (; end < tokens.length; end++) {
        const tk = tokens[end] as Token;
        if (tk.k === "p" && tk.v in OPEN) depth++;
        else if (tk.k === "p" && [")", "]", "}"].includes(tk.v)) {
          if (depth === 0) break;
          depth--;
        } else if (tk.k === "p" && tk.v === ";" && depth === 0) break;
        else if (tk.k === "id" && ["or", "and", "if", "unless", "die"].includes(tk.v) && depth === 0) break;
      }
      out.push({ names, args: splitArgs(tokens.slice(from, end)).map(evaluate) });
    }
  }
  return out;
}
