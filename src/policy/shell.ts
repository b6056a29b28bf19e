/**
 * Shell command lines → the simple commands they run, as bash would run them: parsed with tree-sitter-bash
 * (a full grammar, so quotes, escapes, `&&`, `||`, `;`, pipes, sub-shells, substitutions, here-docs and
 * assignments are understood, not guessed), expanded where the expansion is static (shell/words.ts), walked
 * (shell/walk.ts) and looked through the wrappers that run another command at any depth (shell/wrappers.ts),
 * with the files each writes (shell/writes.ts). What cannot be decided is said, never dropped.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";
import type { ConfigLookup } from "./git/invocation.js";
import { gitRewrittenFiles } from "./git/rev-files.js";
import {
  gitBranchLookup,
  gitConfigLookup,
  gitHistoryLookup,
  gitHooksOff,
  gitRepoKind,
  repoTopOf,
} from "./git/config-lookup.js";
import type { ParsedCommandLine, SimpleCommand, WalkScope, Walker } from "./shell/model.js";
import { NeedsParser, plainWords, walkText } from "./shell/walk.js";
import { emitterFor } from "./shell/wrappers.js";
import { deletesOf } from "./shell/deletions.js";
import { outputOf, uploadsOf } from "./shell/flows.js";
import { writesOf } from "./shell/writes.js";
import { gitPathPrinted } from "./shell/git-dirs.js";
import { projectReader } from "./shell/project-files.js";

export type { ParsedCommandLine, SimpleCommand, Write } from "./shell/model.js";

export interface ShellSite {
  /** The directory the line runs in (absolute). */
  cwd: string;
  home: string;
  /** How git aliases are read (default: `git config --get` in the command's directory). */
  gitConfig?: ConfigLookup;
  /** Read plain words without the parser (default true; false parses every text, for the tests). */
  plain?: boolean;
  /** Past this time (ms since the epoch) parsing and walking stop, undecided. */
  deadline?: number;
  /** The allowed roots: a script, Makefile or package.json inside them that a command runs is read and judged. */
  roots?: string[];
}

let parserLoad: Promise<Parser> | undefined;

/** The bash parser, loaded once (WebAssembly). */
export function bashParser(): Promise<Parser> {
  parserLoad ??= (async () => {
    const require = createRequire(import.meta.url);
    // Named through the package, not next to this module: the bundled hook is elsewhere (dist/bundle).
    await Parser.init({ locateFile: () => require.resolve("web-tree-sitter/tree-sitter.wasm") });
    // Given as bytes: Language.load would read a path through a dynamic import(), which the hook's start-up
    // snapshot cannot do.
    const language = await Language.load(
      fs.readFileSync(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm")),
    );
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  return parserLoad;
}

function startScope(site: ShellSite): WalkScope {
  return {
    vars: new Map(),
    env: {},
    cwd: site.cwd,
    via: [],
    functions: new Set(),
    aliases: new Map(),
    gitConfig: new Map(),
    files: new Map(),
    depth: 0,
  };
}

function walker(parser: Parser | undefined, site: ShellSite): Walker {
  const w: Walker = {
    ...(parser ? { parser } : {}),
    plain: site.plain !== false,
    home: site.home,
    out: { commands: [], parseError: false, undecided: [] },
    repoTop: repoTopOf,
    gitPath: (argv, cwd, env) =>
      gitPathPrinted(argv, cwd, env, (dir) =>
        (site.gitConfig ?? gitConfigLookup)("core.hookspath", dir, env),
      ),
    ...(site.deadline !== undefined ? { deadline: site.deadline } : {}),
    ...(site.roots ? { project: projectReader(site.roots) } : {}),
    emit: () => undefined,
  };
  w.emit = emitterFor(w, {
    lookup: site.gitConfig ?? gitConfigLookup,
    branch: gitBranchLookup,
    history: gitHistoryLookup,
    repoKind: gitRepoKind,
    rewrites: gitRewrittenFiles,
    hooksOff: gitHooksOff,
  });
  return w;
}

/** The commands with the files each writes, deletes and sends. */
function finish(out: ParsedCommandLine, home: string): ParsedCommandLine {
  for (const c of out.commands) {
    c.writes = writesOf(c);
    c.deletes = deletesOf(c);
    const printed = outputOf(
      c.argv.map((value, i) => ({ value, dynamic: c.dynamic[i] ?? false })),
      c.stdin,
      [],
      c.cwd,
      home,
    ).sources;
    c.uploads = [...uploadsOf(c, home, printed), ...(c.inline?.uploads ?? [])];
  }
  return out;
}

/** Parses a command line into every simple command it would run. */
export async function parseCommandLine(text: string, site: ShellSite): Promise<ParsedCommandLine> {
  // Plain words need no parser (its WebAssembly is a good part of a hook's decision); else start again with it.
  if (site.plain !== false && plainWords(text)) {
    const w = walker(undefined, site);
    try {
      walkText(w, text, startScope(site));
      return finish(w.out, site.home);
    } catch (err) {
      if (!(err instanceof NeedsParser)) throw err;
    }
  }
  const w = walker(await bashParser(), site);
  walkText(w, text, startScope(site));
  return finish(w.out, site.home);
}

/** An argv given directly (no shell): only the wrappers are looked through. */
export async function commandsFromArgv(argv: string[], site: ShellSite): Promise<ParsedCommandLine> {
  const w = walker(await bashParser(), site);
  const command: SimpleCommand = {
    argv,
    dynamic: argv.map(() => false),
    env: {},
    stdinFrom: "",
    via: [],
    text: argv.join(" "),
    cwd: site.cwd,
    redirects: [],
    codeFrom: [],
    undecided: "",
  };
  w.emit(command, startScope(site));
  return finish(w.out, site.home);
}
