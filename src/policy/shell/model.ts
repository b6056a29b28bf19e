/**
 * The records of the shell model: the simple commands a line runs (with what each writes, reads on stdin and
 * runs as code), the reading of a whole line (ParsedCommandLine), the scope the walk carries from command to
 * command, what a pipe feeds, the walker's handle, and the walk's limits. Types and constants only.
 */
import type { Parser } from "web-tree-sitter";
import type { Vars } from "./words.js";

/** A file a command writes, removes, re-modes or links (as written; resolved by the checks). */
export interface Write {
  path: string;
  kind: "write" | "delete" | "mode" | "link";
  /** Its name is only known when the line runs. */
  dynamic: boolean;
  /** A recursive operation on a directory (rm -r, chmod -R, cp -r onto). */
  recursive?: boolean;
  /** Each file under it (not the folder alone): `find . -exec sed -i … {} +`. */
  each?: boolean;
  /** Only the files under it whose names match one of these globs (`find . -name '*.pyc' -delete`). */
  names?: string[];
  /** `>>`: adds to the file. */
  append?: boolean;
  /** The text written, when the line gives it (a static printer's output, a here-doc, `tee` of static input). */
  text?: string;
  /** The lines it adds, when only they are known (a patch's hunks, sed's inserted text, inline code's literals). */
  adds?: string[];
  /** The lines a patch removes. */
  removes?: string[];
  /** It writes a copy of this file (`cp`, `mv`, `install` of one file): judged by that file's content. */
  copyOf?: string;
  /** Every file under `from` lands at the same place under `path` (`cp -r`, `rsync`, `mv`, `git mv`). */
  tree?: { from: string; into: "auto" | "contents"; git?: boolean };
  /** A folder moved away (`mv`): its files are judged where they are inside the roots (a home folder moved is destroys' business). */
  moved?: boolean;
  /** git writes it: never inside the repository's own `.git`. */
  git?: boolean;
  /** A program rewrites it (`sed -i`, inline code): of the result only `adds` is known. */
  transformed?: boolean;
  /** Why the name is only known when the line runs (the undecided answer says it). */
  why?: string;
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
  /** Run by `find -exec` on each file it finds: `{}` is one of those (names: the patterns they match). */
  found?: { starts: string[]; names?: string[] };
  /** The project file it was read from (`/p/Makefile#ship`), when a command of the line ran that file; else absent. */
  script?: string;
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
  /** The project files (scripts, Makefiles, package.json scripts) being walked, outermost first. */
  scripts?: string[];
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
  /** What `git rev-parse --git-dir` (`--git-common-dir`, `--git-path X`, …) prints there (git-dirs.ts). */
  gitPath?: (argv: string[], cwd: string, env: Record<string, string>) => string | undefined;
  /** Past this time (ms since the epoch) the walk stops, undecided. */
  deadline?: number;
  /** Reads a project file a command runs (project-files.ts); absent, such files are not read. */
  project?: import("./project-files.js").ProjectReader;
  /** Looks through a command's wrappers and records it (and what it wraps). */
  emit(command: SimpleCommand, scope: WalkScope): void;
}

export interface PipeInput {
  from: string;
  text?: string;
  /** Where the data comes from (files read, `$ENV`), as far as the line says. */
  sources?: string[];
  /** The producing command's argv, when static. */
  argv?: string[];
}
