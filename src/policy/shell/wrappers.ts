/**
 * Programs that run another command, looked through at any depth: shells (`-c`, a script on stdin, a
 * here-doc, a process substitution), `eval`, `exec`, `command`, `builtin`, `env`, `sudo`, `doas`, `su -c`,
 * `nohup`, `setsid`, `nice`, `time`, `timeout`, `stdbuf`, `flock`, `watch`, `xargs`, `find -exec`, the package
 * runners (`npx`, `npm exec`, `uv run`, …), `python -m`, git's aliases and the commands git runs, and shell
 * aliases and functions the line defines. Each wrapped command is recorded with the wrapper in `via`.
 * Their option tables are in wrapper-options.ts, shells and interpreters in code-runners.ts, xargs, find
 * and parallel over a list in list-runners.ts.
 */
import path from "node:path";
import { readGit, shellQuote } from "../git/argv.js";
import type {
  BranchLookup,
  ConfigLookup,
  HistoryLookup,
  HooksOffLookup,
  RepoKindLookup,
  RewriteLookup,
} from "../git/invocation.js";
import { fileCode, interpreter, lineFile, producerOf, shell, type Script } from "./code-runners.js";
import {
  executedFile,
  justfileScripts,
  makeScripts,
  MAX_SCRIPT_DEPTH,
  packageScripts,
  shellScript,
  type Runs,
} from "./project-scripts.js";
import type { ProjectReader } from "./project-files.js";
import { hatchScripts } from "./escape-hatches.js";
import { readFind } from "./find.js";
import { parallel, recursively, treeListed } from "./list-runners.js";
import { MAX_COMMANDS, MAX_DEPTH, type SimpleCommand, type WalkScope, type Walker } from "./model.js";
import { cloneScope, undecided } from "./scope.js";
import { walkText } from "./walk.js";
import { FIELD_BREAK } from "./words.js";
import { INTERPRETERS, PREFIX, SHELLS, skipOptions, SUBCOMMAND, XARGS_VALUE } from "./wrapper-options.js";
import { recordLineFiles, writesOf } from "./writes.js";

const PACKAGE_MANAGERS = new Set(["npm", "yarn", "pnpm", "bun"]);
/** Programs run by a path outside the project that are the system's (not a script the agent could write). */
const SYSTEM_PROGRAM = /^\/(usr|bin|sbin|lib|lib64|opt|nix|snap)\//;

/** Positional parameters of a script run with `sh -c SCRIPT NAME ARGS…`. */
function withPositional(scope: WalkScope, args: string[]): WalkScope {
  const inner = cloneScope(scope, { depth: scope.depth + 1 });
  for (let n = 0; n <= 9; n++) inner.vars.set(String(n), args[n] ?? "");
  // "$@" is each argument as its own field (words.ts splits at FIELD_BREAK); $* is them joined.
  inner.vars.set("@", args.slice(1).join(FIELD_BREAK));
  inner.vars.set("*", args.slice(1).join(" "));
  inner.vars.set("#", String(Math.max(0, args.length - 1)));
  return inner;
}

export interface WrapperOptions {
  lookup: ConfigLookup;
  branch?: BranchLookup;
  history?: HistoryLookup;
  repoKind?: RepoKindLookup;
  rewrites?: RewriteLookup;
  hooksOff?: HooksOffLookup;
}

/** The walker's emit: records a command and everything it runs. */
export function emitterFor(walker: Walker, options: WrapperOptions): Walker["emit"] {
  const emit = (command: SimpleCommand, scope: WalkScope): void => {
    const out = walker.out;
    if (walker.deadline !== undefined && Date.now() > walker.deadline) {
      undecided(walker, "the line was not read within the check's deadline");
      return;
    }
    if (out.commands.length >= MAX_COMMANDS) {
      undecided(walker, `more than ${MAX_COMMANDS} simple commands`);
      return;
    }
    if (scope.depth > MAX_DEPTH) {
      undecided(walker, `more than ${MAX_DEPTH} nested shells or wrappers`);
      return;
    }
    const { argv } = command;
    if (scope.scripts?.length) command.script ??= scope.scripts[0];
    if (argv.length === 0) return void out.commands.push(command);
    if (command.dynamic[0]) {
      command.undecided = `the program is only known when the line runs (${argv[0]})`;
      return void out.commands.push(command);
    }
    const name = path.basename(argv[0] as string);
    const nested = (
      rest: string[],
      wrapper: string,
      extra: Partial<SimpleCommand> = {},
      dynamic?: boolean[],
    ) => {
      if (rest.length === 0) return;
      const offset = argv.length - rest.length;
      emit(
        {
          ...command,
          argv: rest,
          dynamic: dynamic ?? command.dynamic.slice(offset),
          via: [...command.via, wrapper],
          redirects: [],
          ...extra,
        },
        cloneScope(scope, { depth: scope.depth + 1 }),
      );
    };
    const script = (text: string, wrapper: string, positional: string[] = [wrapper], env = command.env) =>
      walkText(walker, text, {
        ...withPositional(
          cloneScope(scope, { env: { ...env }, via: [...command.via, wrapper], cwd: command.cwd }),
          positional,
        ),
      });

    // Text read from a project file (a script, a recipe, a package.json script), walked as if proposed.
    const runProject = (runs: Runs): void => {
      if ("why" in runs) {
        command.undecided ||= runs.why;
        return;
      }
      const chain = scope.scripts ?? [];
      for (const run of runs.runs) {
        if (chain.includes(run.file)) continue; // it runs itself (the same target): its commands are being judged already
        if (chain.length >= MAX_SCRIPT_DEPTH) {
          command.undecided ||= `scripts run scripts more than ${MAX_SCRIPT_DEPTH} deep`;
          return;
        }
        walkText(
          walker,
          run.text,
          withPositional(
            cloneScope(scope, {
              env: { ...command.env },
              via: [...command.via, run.label],
              cwd: run.cwd,
              scripts: [...chain, run.file],
            }),
            run.positional ?? [run.label],
          ),
        );
      }
    };
    // A file the line wrote earlier is read as the line left it; else from disk.
    const disk = walker.project;
    const read: ProjectReader | undefined =
      disk &&
      ((abs) => {
        const lf = scope.files.get(abs);
        if (!lf) return disk(abs);
        if (lf.text !== undefined) return { text: lf.text, file: abs };
        return { why: `${abs}, which ${lf.producer} wrote earlier in the line` };
      });
    const project = read && { read, run: runProject };

    // An alias the line defined (bash expands them in interactive shells and with expand_aliases).
    const alias = scope.aliases.get(argv[0] as string);
    if (alias !== undefined && !command.via.includes(`alias ${argv[0]}`)) {
      out.commands.push(command);
      return script([alias, ...argv.slice(1).map(shellQuote)].join(" "), `alias ${argv[0]}`);
    }
    out.commands.push(command);
    command.writes = writesOf(command);
    recordLineFiles(command, scope.files);
    if (scope.functions.has(argv[0] as string)) return; // its body was checked where it was defined

    if (name === "env") {
      const env = { ...command.env };
      let cwd = command.cwd;
      let i = 1;
      for (; i < argv.length; i++) {
        const a = argv[i] as string;
        if (a === "--") {
          i++;
          break;
        }
        if (a === "-u" || a === "--unset") i++;
        else if (a === "-C" || a === "--chdir") cwd = resolveDir(cwd, argv[++i]);
        else if (a.startsWith("--chdir=")) cwd = resolveDir(cwd, a.slice(8));
        else if (
          a === "-S" ||
          a === "--split-string" ||
          a.startsWith("--split-string=") ||
          /^-[iv0]*S/.test(a)
        ) {
          const inline = a.startsWith("--split-string=")
            ? a.slice(15)
            : /^-[iv0]*S./.test(a)
              ? a.slice(a.indexOf("S") + 1)
              : undefined;
          const text = [inline ?? argv[++i] ?? "", ...argv.slice(i + 1).map(shellQuote)].join(" ");
          return script(text, "env -S", ["env"], env);
        } else if (a.startsWith("-")) continue;
        else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
          const eq = a.indexOf("=");
          env[a.slice(0, eq)] = a.slice(eq + 1);
        } else break;
      }
      return nested(argv.slice(i), "env", { env, cwd });
    }
    const prefix = PREFIX[name];
    if (prefix) {
      const skipped = skipOptions(argv, 1, [...prefix.value, ...(prefix.script ?? [])]);
      if (prefix.noRun?.some((f) => skipped.flags.has(f))) return;
      for (const opt of prefix.script ?? [])
        if (skipped.values.has(opt)) return script(skipped.values.get(opt) as string, `${name} ${opt}`);
      let cwd = command.cwd;
      for (const opt of prefix.chdir ?? [])
        if (skipped.values.has(opt)) cwd = resolveDir(cwd, skipped.values.get(opt));
      const at = skipped.at + (prefix.operands ?? 0);
      if (prefix.viaShell?.some((f) => skipped.flags.has(f)) || name === "watch") {
        const rest = argv.slice(at);
        if (rest.length) return script(rest.join(" "), `${name} (shell)`);
        return;
      }
      if (name === "su" || name === "sg") return; // a login shell: what it runs is typed later
      return nested(argv.slice(at), name, { cwd });
    }
    if (project && PACKAGE_MANAGERS.has(name)) {
      const runs = packageScripts(project.read, command.cwd, argv, command.dynamic);
      if (runs) return runProject(runs);
    }
    if (project && name === "make")
      return runProject(makeScripts(project.read, command.cwd, argv, command.dynamic));
    if (project && name === "just") {
      const runs = justfileScripts(project.read, command.cwd, argv, command.dynamic);
      return runs && runProject(runs);
    }
    const sub = SUBCOMMAND[name];
    if (sub && sub.verbs.includes(argv[1] ?? "")) {
      const skipped = skipOptions(argv, 2, [...sub.value, ...(sub.script ?? [])]);
      for (const opt of sub.script ?? [])
        if (skipped.values.has(opt))
          return script(skipped.values.get(opt) as string, `${name} ${argv[1]} ${opt}`);
      let cwd = command.cwd;
      for (const opt of sub.chdir ?? [])
        if (skipped.values.has(opt)) cwd = resolveDir(cwd, skipped.values.get(opt));
      return nested(argv.slice(skipped.at), `${name} ${argv[1]}`, { cwd });
    }
    if (name === "xargs") {
      const skipped = skipOptions(argv, 1, XARGS_VALUE);
      const rest = argv.slice(skipped.at);
      const program = rest.length ? rest : ["echo"];
      const words = command.stdin?.text?.split(/\s+/).filter(Boolean);
      // `find … | xargs rm`, `ls | xargs rm`: what the producer lists, when it lists a whole tree.
      const tree = words === undefined ? treeListed(command.stdin?.argv) : undefined;
      if (tree)
        return nested(recursively([...program, ...tree]), "xargs", { stdin: undefined, stdinFrom: "" }, []);
      const appended = words ?? ["$(<stdin>)"];
      // `find . -name '*.pyc' | xargs rm`: each word is a file that find selects by name.
      const producer = command.stdin?.argv;
      const listed =
        words === undefined && producer && path.basename(producer[0] ?? "") === "find"
          ? readFind(producer)
          : undefined;
      const found = listed?.names ? { found: { starts: listed.starts, names: listed.names } } : {};
      return nested([...program, ...appended], "xargs", { stdin: undefined, stdinFrom: "", ...found }, [
        ...(rest.length ? command.dynamic.slice(skipped.at) : [false]),
        ...appended.map(() => words === undefined),
      ]);
    }
    if (name === "find") {
      const found = readFind(argv);
      const starts = found.starts.filter((_, k) => !command.dynamic[1 + k]);
      for (let i = found.expressionAt; i < argv.length; i++) {
        if (!["-exec", "-execdir", "-ok", "-okdir"].includes(argv[i] as string)) continue;
        let end = i + 1;
        while (end < argv.length && argv[end] !== ";" && argv[end] !== "+") end++;
        const run = argv.slice(i + 1, end);
        // A find that can match every file runs its command on the whole tree: `find . -exec chmod 777 {} +`
        // is `chmod -R 777 .`, `find ~ -exec rm -rf {} +` is `rm -rf ~`.
        if (
          found.broad &&
          starts.length === found.starts.length &&
          run.includes("{}") &&
          argv[i]?.startsWith("-exec")
        )
          nested(recursively(run.flatMap((a) => (a === "{}" ? starts : [a]))), `find ${argv[i]}`, {}, []);
        else
          nested(
            run,
            `find ${argv[i]}`,
            // `{}` is each file it finds: what it writes is judged at those (writes.ts).
            starts.length === found.starts.length
              ? { found: { starts, ...(found.names && !found.broad ? { names: found.names } : {}) } }
              : {},
            run.map((a, k) => a === "{}" || (command.dynamic[i + 1 + k] ?? false)),
          );
        i = end;
      }
      return;
    }
    if (name === "busybox" && argv[1] !== undefined && !argv[1].startsWith("-"))
      return nested(argv.slice(1), "busybox");
    if (name === "parallel") return parallel(command, script);
    // A program the line itself wrote (`curl -o x.sh URL && chmod +x x.sh && ./x.sh`).
    const written = (argv[0] as string).includes("/")
      ? lineFile(scope, command, argv[0] as string)
      : undefined;
    if (written?.text !== undefined) return script(written.text, argv[0] as string, argv);
    if (written && written.text === undefined) {
      command.codeFrom.push(written.producer);
      command.undecided ||= `it runs ${argv[0]}, which ${written.producer} wrote earlier in the line`;
    }
    // A file of the project run by its path: what it holds is judged (by its `#!`).
    if (!written && project && (argv[0] as string).includes("/") && !SYSTEM_PROGRAM.test(argv[0] as string)) {
      const run = executedFile(project.read, command.cwd, argv[0] as string, argv);
      if ("interpreter" in run) return fileCode(command, run.interpreter, run.code, script, walker);
      return runProject(run);
    }
    if (/^python(\d+(\.\d+)?)?$/.test(name) && argv[1] === "-m" && argv[2])
      return nested(argv.slice(2), `${name} -m`);
    if (name === "eval") {
      if (command.dynamic.slice(1).some(Boolean)) {
        command.undecided = "eval runs text that is only known when the line runs";
        command.codeFrom.push(...argv.slice(1).map(producerOf).filter(Boolean));
        return;
      }
      return script(argv.slice(1).join(" "), "eval");
    }
    if (name === "source" || name === ".") {
      const file = argv[1] !== undefined ? lineFile(scope, command, argv[1]) : undefined;
      if (file?.text !== undefined) return script(file.text, name);
      if (command.dynamic[1] || file) {
        const from = file?.producer ?? producerOf(argv[1] as string);
        command.codeFrom.push(from);
        command.undecided = `it runs code from ${from || "a file"} that is only known when the line runs`;
      } else if (argv[1] !== undefined && project)
        runProject(shellScript(project.read, command.cwd, argv[1], `${name} ${argv[1]}`, argv.slice(1)));
      return;
    }
    const hatch = hatchScripts(
      name,
      argv,
      command.dynamic,
      command.stdin?.text,
      command.stdin !== undefined,
      (file) => {
        const abs = path.isAbsolute(file)
          ? file
          : command.cwd === undefined
            ? undefined
            : path.resolve(command.cwd, file);
        if (abs === undefined) return { why: `${file}, in a folder only known when the line runs` };
        return read ? read(abs) : { why: `${file}, which is not read here` };
      },
    );
    if (hatch) {
      if (hatch.why) command.undecided ||= hatch.why;
      for (const text of hatch.scripts) script(text, `${name} (shell escape)`);
      return;
    }
    if (SHELLS.has(name)) return shell(command, name, script, scope, project);
    if (INTERPRETERS.test(name)) return interpreter(command, name, script, walker, scope, project);
    if (name === "git") return git(command, scope, options, emit, script);
  };
  return emit;
}

function resolveDir(cwd: string | undefined, dir: string | undefined): string | undefined {
  if (dir === undefined) return cwd;
  if (path.isAbsolute(dir)) return path.resolve(dir);
  return cwd === undefined ? undefined : path.resolve(cwd, dir);
}

function git(
  command: SimpleCommand,
  scope: WalkScope,
  options: WrapperOptions,
  emit: Walker["emit"],
  script: Script,
): void {
  const inv = readGit(
    command.argv,
    command.dynamic,
    command.env,
    command.cwd,
    scope.gitConfig,
    options.lookup,
    {
      files: scope.files,
      ...(options.branch ? { branch: options.branch } : {}),
      ...(options.history ? { history: options.history } : {}),
      ...(options.repoKind ? { repoKind: options.repoKind } : {}),
      ...(options.rewrites ? { rewrites: options.rewrites } : {}),
      ...(options.hooksOff ? { hooksOff: options.hooksOff } : {}),
    },
  );
  command.git = inv;
  if (inv.undecided) command.undecided = inv.undecided;
  const via = `git ${inv.aliases.length ? `alias ${inv.aliases.join(" → ")}` : inv.subcommand}`;
  for (const text of inv.shell) script(text, via, ["git"]);
  for (const argv of inv.runs)
    emit(
      {
        ...command,
        argv,
        dynamic: argv.map(() => false),
        via: [...command.via, via],
        redirects: [],
        git: undefined,
      },
      cloneScope(scope, { depth: scope.depth + 1 }),
    );
}
