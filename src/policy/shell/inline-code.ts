/**
 * Inline code of the common interpreters (`python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`, …), read
 * for what it does to the system: the commands it runs (a shell string to `system`/`execSync`/`os.system`,
 * or an argv spelled as literals: `subprocess.run(["git", "commit", "-n"])`, `spawnSync("git", [...])`,
 * `exec "git", "commit", "-n"`), the files it writes, deletes, re-modes or links (with `open`'s mode: a read
 * is not a write), the trees it deletes (`shutil.rmtree`, `fs.rmSync`, `FileUtils.rm_rf`,
 * `File::Path::remove_tree`), code it downloads and evaluates, and files or the environment it sends to the
 * network. A static reading of call sites and their literal arguments, not an interpreter: an argument that
 * is not a literal (or one of the known path expressions: the home folder, the working directory) is
 * "only known when it runs", and the caller decides what that means. Pure. The code is tokenized in
 * inline-tokens.ts and its call sites read in inline-calls.ts; here, what those calls do.
 */
import path from "node:path";
import { callsIn, DYNAMIC_WORD } from "./inline-calls.js";
import { tokenize, type Value } from "./inline-tokens.js";

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

const LANGS: [RegExp, string][] = [
  [/^(python|pypy)/, "python"],
  [/^(node|nodejs|deno|bun)$/, "js"],
  [/^perl/, "perl"],
  [/^ruby/, "ruby"],
  [/^php/, "php"],
];
export const languageOf = (program: string): string => LANGS.find(([re]) => re.test(program))?.[1] ?? "other";

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
      // A command held in a name or built by an expression (`os.system(cmd)`): only known when it runs.
      if (first?.kind === "dyn") out.commands.push(DYNAMIC_WORD);
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
