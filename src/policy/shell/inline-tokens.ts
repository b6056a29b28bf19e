/**
 * Inline code (`python -c`, `node -e`, `perl -e`, …) as tokens: string literals (with each language's
 * prefixes, triple quotes, escapes and whether they interpolate), Perl and Ruby quote operators, backquotes
 * (a command), names, numbers and punctuation. The lexer under inline-calls.ts. Pure.
 */

export type Token =
  | { k: "str"; v: string; dyn: boolean }
  | { k: "list"; items: Value[] }
  | { k: "id"; v: string }
  | { k: "p"; v: string };

/** An argument's value as far as the text says. */
export type Value =
  | { kind: "str"; v: string; dyn: boolean }
  | { kind: "list"; items: Value[] }
  | { kind: "kw"; name: string; value: Value }
  | { kind: "dyn"; text: string };

function unescape(raw: string): string {
  return raw
    .replace(/\\(["'`\\])/g, "$1")
    .replace(/\\n/g, "\n")
    .replace(/\\t/g, "\t");
}

/** String literals of inline code, in order ('…', "…", `…`; escapes as most languages read them). */
export function stringLiterals(code: string): string[] {
  const out: string[] = [];
  const re = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;
  for (const m of code.matchAll(re)) out.push(unescape(m[1] ?? m[2] ?? m[3] ?? ""));
  return out;
}

/** Whether a double-quoted string interpolates in this language (`$x`, `#{x}`, `${x}`, f"{x}"). */
function interpolates(lang: string, quote: string, body: string, prefix: string): boolean {
  if (quote === "`") return /\$\{/.test(body);
  if (/f/i.test(prefix)) return /\{/.test(body);
  if (quote === "'") return false;
  if (lang === "perl" || lang === "php") return /[$@][A-Za-z_{]/.test(body);
  if (lang === "ruby") return /#\{/.test(body);
  return false;
}

export function tokenize(code: string, lang: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < code.length) {
    const c = code[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    // Perl q(), qq(), qw(), qx(); Ruby %w[], %x().
    const quoteOp = /^(qw|qq|qx|q|%w|%W|%x|%i)\s*([([{</|!])/.exec(code.slice(i, i + 4));
    if (quoteOp && (lang === "perl" || lang === "ruby") && !/[\w$]/.test(code[i - 1] ?? "")) {
      const open = quoteOp[2] as string;
      const close = { "(": ")", "[": "]", "{": "}", "<": ">" }[open] ?? open;
      const start = i + quoteOp[0].length;
      const end = code.indexOf(close, start);
      const body = code.slice(start, end === -1 ? undefined : end);
      i = end === -1 ? code.length : end + 1;
      const op = quoteOp[1] as string;
      if (op === "qw" || op === "%w" || op === "%W" || op === "%i")
        out.push({
          k: "list",
          items: body
            .split(/\s+/)
            .filter(Boolean)
            .map((v) => ({ kind: "str", v, dyn: false })),
        });
      else if (op === "qx" || op === "%x") {
        out.push(
          { k: "id", v: "qx" },
          { k: "p", v: "(" },
          { k: "str", v: body, dyn: false },
          { k: "p", v: ")" },
        );
      } else out.push({ k: "str", v: body, dyn: op === "qq" && interpolates(lang, '"', body, "") });
      continue;
    }
    const prefix = /^[rRbBuUfF]{0,2}(?=['"])/.exec(code.slice(i))?.[0] ?? "";
    const q = code[i + prefix.length];
    if ((q === "'" || q === '"' || q === "`") && (prefix === "" || lang === "python")) {
      const start = i + prefix.length;
      const triple = lang === "python" && code.startsWith(q.repeat(3), start);
      const delim = triple ? q.repeat(3) : q;
      let j = start + delim.length;
      let body = "";
      while (j < code.length && !code.startsWith(delim, j)) {
        if (code[j] === "\\" && !/r/i.test(prefix)) {
          body += code.slice(j, j + 2);
          j += 2;
          continue;
        }
        body += code[j];
        j++;
      }
      i = j + delim.length;
      if (q === "`" && lang !== "js") {
        // Backquotes run a command in Perl, Ruby and PHP.
        out.push(
          { k: "id", v: "qx" },
          { k: "p", v: "(" },
          { k: "str", v: body, dyn: false },
          { k: "p", v: ")" },
        );
        continue;
      }
      out.push({
        k: "str",
        v: /r/i.test(prefix) ? body : unescape(body),
        dyn: interpolates(lang, q, body, prefix),
      });
      continue;
    }
    const id = /^[$%@]?[A-Za-z_][A-Za-z0-9_]*/.exec(code.slice(i));
    if (id) {
      out.push({ k: "id", v: id[0] });
      i += id[0].length;
      continue;
    }
    const num = /^[0-9][0-9a-fA-FxXoO_.]*/.exec(code.slice(i));
    if (num) {
      out.push({ k: "id", v: num[0] });
      i += num[0].length;
      continue;
    }
    const punct = /^(::|->|=>|==|!=|\*\*|[()[\]{},;.=+:*%!<>|&?-])/.exec(code.slice(i));
    out.push({ k: "p", v: punct ? (punct[0] as string) : c });
    i += punct ? (punct[0] as string).length : 1;
  }
  return out;
}
