/**
 * Programs with a language of their own that runs shell text: awk (`system("…")`, `print | "cmd"`,
 * `"cmd" | getline`), vim/ex (`-c '!cmd'`, `+'!cmd'`, `--cmd`, `-es` reading commands on stdin,
 * `:r !cmd`, `system('…')`) and expect (`spawn`, `exec`, `system`, and what it `send`s to a shell it
 * spawned). The shell text is returned for the walk to judge as if proposed; a construct that runs
 * something not spelled as a literal (or a script file that cannot be read) is a reason. Pure: files are
 * read through the caller's `read`.
 */
import path from "node:path";

export interface Hatch {
  scripts: string[];
  why?: string;
}

type Read = (file: string) => { text: string } | { why: string };

const AWKS = new Set(["awk", "gawk", "mawk", "nawk", "original-awk"]);
const VIMS = new Set(["vim", "vi", "nvim", "gvim", "view", "vimdiff", "ex", "gex", "evim", "vimx"]);

/** The shell text such a program runs, or undefined when `name` is not one. */
export function hatchScripts(
  name: string,
  argv: string[],
  dynamic: boolean[],
  stdin: string | undefined,
  hasStdin: boolean,
  read: Read,
): Hatch | undefined {
  if (AWKS.has(name)) return awk(argv, dynamic, read);
  if (VIMS.has(name)) return vim(name, argv, dynamic, stdin, hasStdin, read);
  if (name === "expect") return expect(argv, dynamic, read);
  return undefined;
}

const STRING = String.raw`"((?:[^"\\\n]|\\.)*)"`;
const unescape = (s: string) => s.replace(/\\(.)/g, (_m, c: string) => ({ n: "\n", t: "\t", r: "" })[c] ?? c);

function awk(argv: string[], dynamic: boolean[], read: Read): Hatch {
  let program: string | undefined;
  const files: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--") {
      program ??= argv[i + 1];
      break;
    }
    if (["-f", "--file", "-i", "--include", "-E", "--exec"].includes(a)) {
      files.push(argv[++i] ?? "");
      continue;
    }
    if (["-F", "-v", "--assign", "--field-separator", "-l", "--load"].includes(a)) {
      i++;
      continue;
    }
    if (a.startsWith("-") && a !== "-") continue;
    if (files.length === 0) {
      if (dynamic[i]) return { scripts: [], why: "awk runs a program only known when the line runs" };
      program = a;
    }
    break;
  }
  const texts = program !== undefined && files.length === 0 ? [program] : [];
  for (const f of files) {
    const got = read(f);
    if ("why" in got) return { scripts: [], why: `awk -f ${got.why}` };
    texts.push(got.text);
  }
  const out: Hatch = { scripts: [] };
  for (const code of texts) {
    const literal = [
      ...code.matchAll(new RegExp(String.raw`\bsystem\s*\(\s*${STRING}\s*\)`, "g")),
      ...code.matchAll(new RegExp(String.raw`\|&?\s*${STRING}`, "g")),
      ...code.matchAll(new RegExp(String.raw`${STRING}\s*\|&?\s*getline`, "g")),
    ];
    out.scripts.push(...literal.map((m) => unescape(m[1] as string)));
    // `print … | "sh"`: the shell runs what awk prints, which the input decides.
    for (const m of code.matchAll(new RegExp(String.raw`\|&?\s*${STRING}`, "g")))
      if (
        /^\s*(\S*\/)?(sh|bash|dash|zsh|ksh|ash|python\d*|perl|ruby|node)(\s|$)/.test(unescape(m[1] as string))
      )
        out.why ??= "awk pipes what it prints into a shell or an interpreter";
    // What runs a process, with the literal forms removed: anything left runs a computed command.
    const rest = code
      .replace(new RegExp(String.raw`\bsystem\s*\(\s*${STRING}\s*\)`, "g"), "")
      .replace(new RegExp(String.raw`\|&?\s*${STRING}`, "g"), "")
      .replace(new RegExp(String.raw`${STRING}\s*\|&?\s*getline`, "g"), "")
      .replace(new RegExp(STRING, "g"), '""');
    if (
      /\bsystem\s*\(/.test(rest) ||
      /\b(print|printf)\b[^;{}\n]*[^|]\|(?!\|)/.test(rest) ||
      /[^|]\|&?\s*getline\b/.test(rest)
    )
      out.why ??= "awk runs a command that is only known when it runs (system, a pipe)";
  }
  return out;
}

/** Ex commands that are only ever force flags (`:wq!`), not a shell escape. */
const FORCE =
  /\b(w|q|wq|x|wa|qa|wqa|xa|xit|e|bd|bw|write|quit|wall|qall|edit|update|up|sav|saveas|n|next|only)!/g;
const RUNS_CODE =
  /\b(system|systemlist|termopen|jobstart|terminal|term|lua|luado|luafile|py|py3|python|python3|pyx|pydo|py3do|perl|perldo|ruby|rubydo|rubyfile|pyfile|py3file|so|source|runtime|execute|exe|call|normal|norm|make|grep|lgrep|cexpr|shell|sh)\b/;

/** One ex command's shell text, or a reason it runs something not read here. */
function exCommand(text: string): Hatch {
  const out: Hatch = { scripts: [] };
  for (const line of text.split("\n")) {
    const cmd = line.replace(/^[\s:]+/, "");
    if (cmd === "" || cmd.startsWith('"')) continue;
    // `:!cmd`, `:r !cmd`, `:w !cmd`, `:{range}!filter`: the rest of the line is shell text.
    const bang = /^(?:[.,%$\d'<>+\-;/\\&a-z?]*?\s*)?(?:r(?:ead)?|w(?:rite)?)?\s*!(.*)$/s.exec(cmd);
    if (bang && !/^(?:w|q|wq|x|e)!/.test(cmd)) {
      out.scripts.push(bang[1] as string);
      continue;
    }
    const sys = [...cmd.matchAll(/\bsystem(?:list)?\s*\(\s*(?:'([^']*)'|"((?:[^"\\]|\\.)*)")\s*\)/g)];
    out.scripts.push(...sys.map((m) => m[1] ?? unescape(m[2] as string)));
    const rest = cmd
      .replace(/\bsystem(?:list)?\s*\(\s*(?:'[^']*'|"(?:[^"\\]|\\.)*")\s*\)/g, "")
      .replace(FORCE, "");
    if (RUNS_CODE.test(rest) || rest.includes("!"))
      out.why ??= `vim runs an ex command that can run a program (${cmd.slice(0, 60)})`;
  }
  return out;
}

function vim(
  name: string,
  argv: string[],
  dynamic: boolean[],
  stdin: string | undefined,
  hasStdin: boolean,
  read: Read,
): Hatch {
  const out: Hatch = { scripts: [] };
  const add = (h: Hatch) => {
    out.scripts.push(...h.scripts);
    if (h.why) out.why ??= h.why;
  };
  let exMode = name === "ex" || name === "gex";
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--") break;
    const value = ["-c", "--cmd", "-S", "-s", "-u", "-U", "-W", "-w", "-i", "-T", "-t", "-q"].includes(a)
      ? argv[i + 1]
      : undefined;
    if (value !== undefined && dynamic[i + 1])
      return { scripts: [], why: `${name} ${a} is given text only known when the line runs` };
    if (a === "-c" || a === "--cmd") add(exCommand(argv[++i] ?? ""));
    else if (a.startsWith("+") && !/^\+\d*$/.test(a)) add(exCommand(a.slice(1).replace(/^\//, "/")));
    else if (a === "-S" || a === "-u" || a === "-s") {
      const file = argv[++i] ?? "";
      if (a === "-u" && /^(NONE|NORC|DEFAULTS)$/.test(file)) continue;
      const got = read(file);
      if ("why" in got) return { scripts: [], why: `${name} ${a} ${got.why}` };
      // `-s` replays normal-mode keys: a `:` line in it is an ex command.
      add(
        exCommand(
          a === "-s"
            ? got.text
                .split("\n")
                .filter((l) => l.startsWith(":"))
                .join("\n")
            : got.text,
        ),
      );
    } else if (/^-[A-Za-z]*[eE]/.test(a) && !a.startsWith("--")) exMode = true;
    else if (["-W", "-w", "-i", "-T", "-t", "-q", "-r", "-L"].includes(a) && value !== undefined) i++;
  }
  // Ex mode (`ex`, `vim -e`, `vim -es`) reads its commands from stdin when it is not a terminal.
  if (exMode && hasStdin) {
    if (stdin === undefined)
      out.why ??= `${name} reads ex commands from stdin, only known when the line runs`;
    else add(exCommand(stdin));
  }
  return out;
}

/** Tcl words of one expect command: braces and double quotes group; `$` or `[` leaves it computed. */
function tclWords(command: string): { words: string[]; dynamic: boolean } {
  const words: string[] = [];
  let dynamic = false;
  const re = /\{([^{}]*)\}|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of command.matchAll(re)) {
    if (m[1] !== undefined) words.push(m[1]);
    else {
      const w = m[2] ?? (m[3] as string);
      if (/[$[]/.test(w)) dynamic = true;
      words.push(unescape(w));
    }
  }
  return { words, dynamic };
}

const quote = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`);

function expect(argv: string[], dynamic: boolean[], read: Read): Hatch {
  const texts: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (dynamic[i]) return { scripts: [], why: "expect runs a script only known when the line runs" };
    if (a === "-c") texts.push(argv[++i] ?? "");
    else if (a === "-f" || !a.startsWith("-")) {
      const file = a === "-f" ? (argv[i + 1] ?? "") : a;
      const got = read(file);
      if ("why" in got) return { scripts: [], why: `expect runs ${got.why}` };
      texts.push(got.text);
      break;
    }
  }
  const out: Hatch = { scripts: [] };
  let shellSpawned = false;
  for (const text of texts)
    for (const command of text.split(/[\n;]/)) {
      const { words, dynamic: computed } = tclWords(command.trim());
      const [verb, ...rest] = words;
      if (verb === "spawn" || verb === "exec" || verb === "system") {
        const args = rest.filter((w, k) => !(k === 0 && w.startsWith("-") && verb === "spawn"));
        if (computed) out.why ??= `expect ${verb} runs a command only known when it runs`;
        else out.scripts.push(verb === "system" ? args.join(" ") : args.map(quote).join(" "));
        if (verb === "spawn" && /^(sh|bash|dash|zsh|ksh)$/.test(path.basename(args[0] ?? "")))
          shellSpawned = true;
      } else if (verb === "send" && shellSpawned) {
        const said = rest.filter((w) => !w.startsWith("-")).join(" ");
        if (computed) out.why ??= "expect sends a shell text only known when it runs";
        else out.scripts.push(said);
      } else if (verb === "eval" || verb === "uplevel" || verb === "interp" || verb === "source")
        out.why ??= `expect ${verb} runs Tcl code not read here`;
    }
  return out;
}
