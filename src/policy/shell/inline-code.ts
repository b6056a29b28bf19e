/**
 * Inline code of the common interpreters (`python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`, …), read
 * for what it does to the system: the commands it runs (a shell string to `system`/`execSync`/`os.system`,
 * or an argv spelled as literals: `subprocess.run(["git", "commit", "-n"])`, `spawnSync("git", [...])`,
 * `exec "git", "commit", "-n"`), the files it writes, deletes, re-modes or links (with `open`'s mode: a read
 * is not a write), the trees it deletes (`shutil.rmtree`, `fs.rmSync`, `FileUtils.rm_rf`,
 * `File::Path::remove_tree`), code it downloads and evaluates, and files or the environment it sends to the
 * network. A static reading of call sites and their literal arguments, not an interpreter: an argument that
 * is not a literal (or one of the known path expressions: the home folder, the working directory) is
 * "only known when it runs", and the caller decides what that means. Pure.
 */
import path from "node:path";

type Token =
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

export interface InlineWrite {
  path: string;
  kind: "write" | "delete" | "mode" | "link";
  recursive?: boolean;
  dynamic: boolean;
}

export interface InlineAnalysis {
  /** Shell lines it runs (argv lists are given shell-quoted; a part only known at run time as `$__mcq_dynamic`). */
  commands: string[];
  writes: InlineWrite[];
  /** A file call whose path is not a literal: where it writes is not known from the text. */
  unknownWrites: boolean;
  /** The download API whose result it evaluates as code (`urlopen` + `exec`, `fetch` + `eval`). */
  downloadsCode?: string;
  /** Files (and `$ENV`) it sends to the network. */
  uploads: string[];
}

/** Placeholder words for values the checks resolve: the home folder and the working directory. */
export const HOME_WORD = "\u0000HOME";
export const CWD_WORD = "\u0000CWD";
/** A variable no line sets: an argv element only known when the code runs becomes a dynamic field. */
const DYNAMIC_WORD = '"$__mcq_dynamic"';

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

const LANGS: [RegExp, string][] = [
  [/^(python|pypy)/, "python"],
  [/^(node|nodejs|deno|bun)$/, "js"],
  [/^perl/, "perl"],
  [/^ruby/, "ruby"],
  [/^php/, "php"],
];
export const languageOf = (program: string): string => LANGS.find(([re]) => re.test(program))?.[1] ?? "other";

function tokenize(code: string, lang: string): Token[] {
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

interface Call {
  /** The called name and its receiver (`subprocess.run` → ["subprocess", "run"]). */
  names: string[];
  args: Value[];
  /** The tokens of a receiver call (`Path("x")` in `Path("x").write_text(...)`). */
  receiver?: Value;
}

/** Call sites: `name(args)`, and Perl/Ruby's `name arg, arg` without parentheses. */
function callsIn(tokens: Token[], lang: string): Call[] {
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

/** Functions that run a process (a shell string, or an argv). */
const RUNS =
  /^(system|popen|popen2|popen3|Popen|getoutput|getstatusoutput|check_output|check_call|call|run|exec|execSync|execFile|execFileSync|spawn|spawnSync|fork|execv|execve|execvp|execvpe|execl|execle|execlp|execlpe|spawnv|spawnve|spawnvp|spawnvpe|spawnl|spawnle|spawnlp|spawnlpe|posix_spawn|posix_spawnp|shell_exec|passthru|proc_open|pcntl_exec|capture2|capture2e|capture3|pipeline|qx|Command|\$|sh|execa|execaSync|execaCommand|execaCommandSync)$/;
/** Calls whose first argument is a file they write (the mode says for open). */
const WRITES_FIRST =
  /^(writeFile|writeFileSync|appendFile|appendFileSync|write_text|write_bytes|file_put_contents|truncate|truncateSync|touch|createWriteStream|outputFile|outputFileSync|writeJson|writeJsonSync|write_file|spew|Files\.write)$/;
const OPENS = /^(open|fopen|sysopen)$/;
const DELETES =
  /^(unlink|unlinkSync|remove|rmdir|rmdirSync|delete|rm|rm_f|safe_unlink|removeSync|unlink_if_exists)$/;
const DELETES_TREE =
  /^(rmtree|remove_tree|rm_rf|rm_r|remove_dir|remove_entry|remove_entry_secure|rmSync|rimraf|rimrafSync|emptyDir|emptyDirSync|deleteSync|removeSync|rmdir_p|remove_dir_all)$/;
const MODES = /^(chmod|chmodSync|lchmod|chown|chownSync|lchown|fchmod|chmod_R|chown_R)$/;
const COPIES =
  /^(copy|copy2|copyfile|copyFile|copyFileSync|cp|cpSync|copytree|cp_r|install|copy_file|copySync)$/;
const MOVES = /^(move|rename|renameSync|replace|mv|move_file|moveSync)$/;
const LINKS = /^(symlink|symlinkSync|link|linkSync|symlink_to|hardlink_to|ln_s|ln|ln_sf)$/;
/** Receiver methods (`Path("x").unlink()`): the receiver is the file. */
const RECEIVER_WRITES = /^(write_text|write_bytes|touch|open)$/;
const RECEIVER_DELETES = /^(unlink|rmdir)$/;
const RECEIVER_MODES = /^(chmod|lchmod)$/;
const RECEIVER_MOVES = /^(rename|replace)$/;

const DOWNLOADS =
  /\b(urlopen|urlretrieve|requests\.get|requests\.request|httpx\.get|http\.get|https\.get|fetch|axios(\.get)?|got|Net::HTTP|URI\.open|open-uri|LWP|HTTP::Tiny|file_get_contents\(\s*["']https?:|Invoke-WebRequest|request\.get)\b/;
const EVALS =
  /(^|[^.\w])(eval|exec|compile)\s*\(|\beval\b|\bnew\s+Function\b|\bFunction\s*\(|runInThisContext|runInNewContext|runInContext|instance_eval|class_eval|module_eval|\bload\s*\(|\bdo\s*\(/;
const SENDS =
  /\b(requests\.(post|put|patch|request)|httpx\.(post|put|patch)|urlopen|Request|http\.client|HTTPConnection|HTTPSConnection|fetch|axios(\.(post|put|patch))?|https?\.request|socket|sendall|smtplib|Net::HTTP|HTTP::Tiny|LWP|post_form|curl_exec|WebClient|UploadFile)\b/;
const READS_FILE =
  /^(open|fopen|readFile|readFileSync|read_text|read_bytes|read|file_get_contents|slurp|readlines|File\.read|IO\.read|readAll)$/;
/** The environment as a whole (not one variable of it). */
const WHOLE_ENV =
  /\bos\.environ\b(?!\s*(\[|\.get\b|\.setdefault\b|\.pop\b))|\bprocess\.env\b(?!\s*(\.|\[))|\bENV\b(?!\s*(\[|\.fetch\b|\.key\?|\.include))|%ENV\b|\$_ENV\b(?!\s*\[)|\bgetenv\(\s*\)|\bos\.environ\.(items|copy|keys|values)\b|Deno\.env\.toObject/;

const strOf = (v: Value | undefined): { v: string; dyn: boolean } | undefined =>
  v?.kind === "str" ? { v: v.v, dyn: v.dyn } : v?.kind === "kw" ? undefined : undefined;

/** Positional arguments (keyword ones set apart). */
const positional = (args: Value[]) => args.filter((a) => a.kind !== "kw");
const keyword = (args: Value[], name: string) =>
  (args.find((a) => a.kind === "kw" && a.name === name) as { value: Value } | undefined)?.value;

const quote = (w: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/** The argv a process call runs: strings and lists flattened, leading non-strings (os.P_WAIT) skipped. */
function argvOf(args: Value[]): { argv: string[]; dynamic: boolean[] } | undefined {
  const pos = positional(args);
  let k = 0;
  while (
    k < pos.length &&
    pos[k]?.kind === "dyn" &&
    pos.length > 1 &&
    !/["']/.test((pos[k] as { text: string }).text)
  )
    k++;
  const words: Value[] = [];
  for (const a of pos.slice(k)) {
    if (a.kind === "list") words.push(...a.items);
    else if (a.kind === "str") words.push(a);
    else break; // an options object, a callback: the argv has ended
  }
  if (words.length === 0) return undefined;
  const argv = words.map((w) => (w.kind === "str" ? w.v : ""));
  const dynamic = words.map((w) => w.kind !== "str" || w.dyn);
  // execvp("git", ["git", "commit"]): the list repeats the program as its argv[0]
  if (argv.length > 1 && path.basename(argv[0] as string) === path.basename(argv[1] as string)) {
    argv.splice(1, 1);
    dynamic.splice(1, 1);
  }
  return { argv, dynamic };
}

/** Reads inline code for what it does (see the module comment). */
export function analyzeInline(code: string, program: string): InlineAnalysis {
  const lang = languageOf(program);
  const tokens = tokenize(code.length > 65_536 ? code.slice(0, 65_536) : code, lang);
  const calls = callsIn(tokens, lang);
  const out: InlineAnalysis = { commands: [], writes: [], unknownWrites: false, uploads: [] };
  const fileArg = (v: Value | undefined, kind: InlineWrite["kind"], recursive = false) => {
    const s = strOf(v);
    if (!s || s.dyn) {
      out.unknownWrites = true;
      return;
    }
    out.writes.push({ path: s.v, kind, dynamic: false, ...(recursive ? { recursive: true } : {}) });
  };
  const reads: string[] = [];
  for (const call of calls) {
    const name = call.names.at(-1) as string;
    const qualified = call.names.join(".");
    const pos = positional(call.args);
    if (RUNS.test(name) && !(lang === "python" && name === "run" && call.names[0] === "asyncio")) {
      const first = pos[0];
      // A single string: a shell line (os.system, execSync, `system "…"`, subprocess.run("…", shell=True)).
      if (first?.kind === "str" && pos.filter((a) => a.kind === "str" || a.kind === "list").length === 1)
        out.commands.push(first.dyn ? DYNAMIC_WORD : first.v);
      const run = argvOf(call.args);
      if (run && run.argv.length > 1)
        out.commands.push(run.argv.map((w, i) => (run.dynamic[i] ? DYNAMIC_WORD : quote(w))).join(" "));
    }
    if (call.receiver && call.receiver.kind === "str") {
      if (RECEIVER_WRITES.test(name)) {
        const mode =
          strOf(pos[0])?.v ?? strOf(keyword(call.args, "mode"))?.v ?? (name === "open" ? "r" : "w");
        if (name !== "open" || /[wax+]/.test(mode)) fileArg(call.receiver, "write");
        else reads.push(call.receiver.v);
      } else if (RECEIVER_DELETES.test(name)) fileArg(call.receiver, "delete");
      else if (RECEIVER_MODES.test(name)) fileArg(call.receiver, "mode");
      else if (RECEIVER_MOVES.test(name)) {
        fileArg(call.receiver, "delete");
        fileArg(pos[0], "write");
      } else if (name === "symlink_to" || name === "hardlink_to") fileArg(call.receiver, "link");
      else if (/^read_(text|bytes)$/.test(name)) reads.push(call.receiver.v);
      continue;
    }
    if (OPENS.test(name) && !(lang === "js" && call.names.length > 1 && call.names[0] !== "fs")) {
      if (lang === "perl") {
        // open(FH, ">", "file") / open(FH, ">file")
        const mode = strOf(pos[1]);
        const target = pos.length >= 3 ? pos[2] : pos[1];
        const spec = mode?.v ?? "";
        const m = /^\s*(\+?[<>]{1,2}|\|)?\s*(.*)$/.exec(pos.length >= 3 ? spec : spec);
        const writes = /[>+]/.test(m?.[1] ?? "");
        if (pos.length >= 3) {
          if (writes) fileArg(target, "write");
          else if (strOf(target)) reads.push((strOf(target) as { v: string }).v);
        } else if (mode && writes && m?.[2]) fileArg({ kind: "str", v: m[2], dyn: mode.dyn }, "write");
        else if (mode && m?.[2]) reads.push(m[2]);
        continue;
      }
      const mode =
        strOf(pos[1])?.v ??
        strOf(keyword(call.args, "mode"))?.v ??
        strOf(keyword(call.args, "flags"))?.v ??
        "r";
      if (/[wax+]/.test(mode)) fileArg(pos[0], "write");
      else if (strOf(pos[0])) reads.push((strOf(pos[0]) as { v: string }).v);
      continue;
    }
    if (READS_FILE.test(name) || READS_FILE.test(qualified)) {
      const s = strOf(pos[0]);
      if (s) reads.push(s.v);
    }
    if (
      WRITES_FIRST.test(name) ||
      WRITES_FIRST.test(qualified) ||
      (name === "write" && /^(File|IO)$/.test(call.names.at(-2) ?? ""))
    )
      fileArg(pos[0], "write");
    else if (DELETES_TREE.test(name)) fileArg(pos[0], "delete", true);
    else if (
      (name === "rm" || name === "rmSync" || name === "rmdir") &&
      call.args.some((a) => JSON.stringify(a).includes("recursive"))
    )
      fileArg(pos[0], "delete", true);
    else if (
      DELETES.test(name) &&
      !(name === "delete" && call.names.length < 2) &&
      !(name === "remove" && lang === "js")
    )
      fileArg(pos[0], "delete");
    else if (MODES.test(name)) fileArg(lang === "perl" ? pos.at(-1) : pos[0], "mode");
    else if (COPIES.test(name)) fileArg(pos.at(-1), "write", /copytree|cp_r/.test(name));
    else if (MOVES.test(name)) {
      fileArg(pos[0], "delete", true);
      fileArg(pos.at(-1), "write");
    } else if (LINKS.test(name)) {
      fileArg(pos[0], "link");
      fileArg(pos[1], "link");
    }
  }
  const download = DOWNLOADS.exec(code);
  if (download && EVALS.test(code)) out.downloadsCode = download[1]?.split(/[.(]/)[0] ?? "download";
  if (SENDS.test(code)) {
    out.uploads.push(...reads);
    if (WHOLE_ENV.test(code)) out.uploads.push("$ENV");
  }
  return out;
}
