/**
 * `check`'s command line: its own flags, and the server's limit flags passed through to the engine's
 * Config (so --timeout, --max-concurrent and the rest mean what they mean for the server).
 */
import { outermostPaths } from "./outer-paths.js";
import fs from "node:fs";
import path from "node:path";
import {
  FlagError,
  HELP_FLAG,
  int,
  parseCommandLine,
  UsageError,
  type CommandLine,
  type Flag,
} from "../cli/args.js";
import { renderHelp } from "../cli/help.js";
import { OPTIONS } from "../config.js";
import { DAEMON_ENV } from "./daemon/key.js";
import { parseShard, type Shard } from "../cache/shard.js";

export { UsageError };

export interface CheckOptions {
  /** Absolute paths to check (default: the working directory). */
  paths: string[];
  only: string[];
  skip: string[];
  fix: boolean;
  /** --changed: only files changed since this revision (HEAD when none is given). */
  changed?: string;
  /**
   * --files: the PATHs are files (as the pre-commit framework passes them): the checks run on the working
   * directory's project and report these files only. `paths` is then the working directory.
   */
  files?: string[];
  /** Where to write the SARIF log. */
  sarif?: string;
  /** --sarif-max-results: at most this many results per run in the SARIF file. */
  sarifMaxResults?: number;
  /** --shard i/n: this CI job's share of the files (and of the whole-program checks). */
  shard?: Shard;
  /** --merge-sarif: the PATHs are shards' SARIF logs to join into --sarif's file; nothing is checked. */
  mergeSarif: boolean;
  json: boolean;
  /** --github: a job summary, annotations and step outputs for GitHub Actions (src/check/github.ts). */
  github: boolean;
  /** --html FILE: one self-contained HTML report (src/check/html.ts). */
  html?: string;
  externalLinks: boolean;
  help: boolean;
  /** Flags for the engine's Config (`--timeout 60`, ...). */
  configArgs: string[];
}

/** Server flags that mean nothing to a one-shot check. */
const NOT_FOR_CHECK = new Set([
  "--mode",
  "--port",
  "--host",
  "--auth-token",
  "--max-body-bytes",
  "--http-request-timeout",
  "--max-connections",
  "--toolsets",
  "--tool",
  "--arguments",
]);

/** The server flags check accepts, in --help order. */
export const PASSED_THROUGH = OPTIONS.filter((o) => !NOT_FOR_CHECK.has(o.flag));

const CHECK_OWN_FLAGS: Flag[] = [
  {
    flag: "--only",
    value: "TOOLS",
    multiple: true,
    help: "run only these (comma-separated; repeatable): tool ids, kinds, languages",
  },
  { flag: "--skip", value: "TOOLS", multiple: true, help: "leave these out (same names as --only)" },
  {
    flag: "--fix",
    type: "boolean",
    help: "apply safe lint fixes and formatting first (as transactions), then check",
  },
  {
    flag: "--changed",
    value: "[REV]",
    help: "only files changed since REV (default HEAD; --changed=REV to be unambiguous)",
  },
  {
    flag: "--files",
    type: "boolean",
    help: "the PATHs are files: check the project here (.) and report only them (pre-commit hooks)",
  },
  {
    flag: "--sarif",
    value: "FILE",
    help: "write one SARIF 2.1.0 log (a run per tool, every result) to FILE (never through a link)",
  },
  {
    flag: "--sarif-max-results",
    value: "N",
    help: "at most N results per run in the SARIF file, the most severe (GitHub: 25000)",
  },
  { flag: "--json", type: "boolean", help: "print the results as JSON instead of the report" },
  {
    flag: "--html",
    value: "FILE",
    help: "write one self-contained HTML report to FILE (never through a link)",
  },
  {
    flag: "--github",
    type: "boolean",
    help: "in GitHub Actions: job summary, annotations on changed lines, step outputs",
  },
  {
    flag: "--shard",
    value: "I/N",
    help: "check this CI job's share of the files: the I-th of N (deterministic by path)",
  },
  {
    flag: "--merge-sarif",
    type: "boolean",
    help: "join shards' SARIF logs (the PATHs) into the --sarif FILE; nothing is checked",
  },
  {
    flag: "--external-links",
    type: "boolean",
    help: "let the Markdown link check request external URLs (default: local links only)",
  },
  // Read (and taken out) before anything loads: src/check/daemon/flags.ts.
  {
    flag: "--daemon",
    type: "boolean",
    help: "run through a background check daemon that stays warm",
    env: [DAEMON_ENV],
  },
  { flag: "--no-daemon", type: "boolean", help: "run in this process (the default)" },
  {
    flag: "--daemon-status",
    type: "boolean",
    help: "print the daemon of this environment (pid, checks served) as JSON; exit 1 if none",
  },
  { flag: "--daemon-stop", type: "boolean", help: "stop the daemon of this environment" },
  HELP_FLAG,
];

/** `check`'s command line: its own flags and the server's limits it passes through. */
export const CHECK_COMMAND_LINE: CommandLine = {
  name: "mcp-code-quality check",
  flags: [...CHECK_OWN_FLAGS, ...PASSED_THROUGH],
  positionals: true,
};

export function checkHelp(): string {
  return renderHelp({
    usage: ["mcp-code-quality check [PATH...] [options]"],
    about: [
      "Detects the languages of each PATH (default: .) and runs their format check, lint, type check and",
      "Markdown link check through the server's engine, several at once.",
      "",
      "  python    ruff format (or black), ruff (or flake8), ty (or mypy / pyright when configured)",
      "  js/ts     prettier (when configured), eslint, tsc (with a tsconfig.json)",
      "  go        gofmt, govet (or golangci-lint when configured), go (go build)",
      "  rust      rustfmt, clippy, cargo (cargo check)",
      "  ruby      rubocop",
      "  markdown  markdown-links",
      "",
      "Kinds for --only/--skip: format, lint, types, links. `ruff` names both ruff checks.",
    ],
    groups: [
      { title: "Options", flags: CHECK_OWN_FLAGS },
      {
        title: "Engine limits (as for the server; the allowed paths default to the PATHs checked)",
        flags: PASSED_THROUGH,
      },
    ],
    footer: [
      "Colours only on a terminal, never with NO_COLOR. Progress goes to stderr when it is a terminal.",
      "Exit codes: 0 clean, 1 findings, 2 usage or configuration error, 3 a tool failed (crash, timeout,",
      "bad config). A detected tool that is not installed is skipped; named with --only, it is exit 2.",
      "When nothing the last run of the same command here read has changed, its answer is printed again",
      "without running anything (MCP_CODE_QUALITY_CHECK_REPLAY=0: never; =explain: say why or why not).",
    ],
  });
}

/**
 * `--changed` takes an optional value: the next argument is its revision unless it is a flag or an
 * existing path (then it is a PATH to check, and the revision is HEAD).
 */
function normalizeChanged(argv: readonly string[], cwd: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a !== "--changed") {
      out.push(a);
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith("-") && !fs.existsSync(path.resolve(cwd, next))) {
      out.push(`--changed=${next}`);
      i++;
    } else out.push("--changed=HEAD");
  }
  return out;
}

/**
 * Every word after `--files` is a file name (docs/check.md), `-x.py` and `--help.py` too: the pre-commit
 * framework passes whatever files are staged. So `--files` ends the options, as `--` does.
 */
function filesTakeTheRest(argv: readonly string[]): string[] {
  const at = argv.indexOf("--files");
  if (at === -1 || argv[at + 1] === "--") return [...argv];
  return [...argv.slice(0, at + 1), "--", ...argv.slice(at + 1)];
}

const list = (values: string[] | undefined) =>
  (values ?? [])
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);

/** A count flag (at least 1), in the words every number flag uses. */
const positiveInt = (value: string | undefined, flag: string): number | undefined =>
  value === undefined ? undefined : int(value, flag, 1, 10_000_000);

/** Parses check's arguments; a bad one throws UsageError saying which. */
export function parseCheckArgs(argv: readonly string[], cwd: string): CheckOptions {
  const parsed = parseCommandLine(CHECK_COMMAND_LINE, filesTakeTheRest(normalizeChanged(argv, cwd)));
  const { values, positionals } = parsed;
  const v = values as Record<string, string | string[] | boolean | undefined>;
  const configArgs: string[] = [];
  for (const o of PASSED_THROUGH) {
    const value = v[o.flag.slice(2)];
    if (typeof value === "string") configArgs.push(o.flag, value);
  }
  const mergeSarif = v["merge-sarif"] === true;
  if (mergeSarif && !v.help) {
    if (typeof v.sarif !== "string") throw new UsageError("--merge-sarif needs --sarif FILE to write");
    if (positionals.length === 0) throw new UsageError("--merge-sarif needs the shards' SARIF logs as PATHs");
  }
  let shard: Shard | undefined;
  if (typeof v.shard === "string") {
    shard = parseShard(v.shard);
    if (!shard) throw new FlagError("--shard", `expected I/N with 1 <= I <= N <= 1024, got "${v.shard}"`);
    if (v.fix) throw new UsageError("--shard cannot be combined with --fix (each job would fix its share)");
  }
  let paths = (positionals.length ? positionals : ["."]).map((p) => path.resolve(cwd, p));
  if (!v.help)
    for (const p of paths) if (!fs.existsSync(p)) throw new UsageError(`${p}: no such file or directory`);
  const changed = v.changed as string | undefined;
  let files: string[] | undefined;
  if (v.files === true && !v.help) {
    if (changed !== undefined) throw new UsageError("--files and --changed both choose the files; give one");
    if (shard) throw new UsageError("--files cannot be combined with --shard");
    if (mergeSarif) throw new UsageError("--files cannot be combined with --merge-sarif");
    const outside = paths.find((p) => p !== cwd && !p.startsWith(cwd + path.sep));
    if (outside) throw new UsageError(`--files: ${outside} is outside the working directory ${cwd}`);
    // No file (a hook whose files were all filtered out) checks nothing, rather than everything.
    files = positionals.length ? paths.filter((p) => fs.statSync(p).isFile()) : [];
    paths = [cwd];
  }
  // SARIF logs to merge are no folders to check.
  if (!mergeSarif) paths = outermostPaths(paths);
  if (changed !== undefined && !v.help && paths.some((p) => !fs.statSync(p).isDirectory()))
    throw new UsageError("--changed takes directories to check, not files");
  return {
    paths,
    only: list(v.only as string[] | undefined),
    skip: list(v.skip as string[] | undefined),
    fix: v.fix === true,
    changed,
    files,
    sarif: typeof v.sarif === "string" ? path.resolve(cwd, v.sarif) : undefined,
    sarifMaxResults: positiveInt(v["sarif-max-results"] as string | undefined, "--sarif-max-results"),
    json: v.json === true,
    github: v.github === true,
    html: typeof v.html === "string" ? path.resolve(cwd, v.html) : undefined,
    shard,
    mergeSarif,
    externalLinks: v["external-links"] === true,
    help: v.help === true,
    configArgs,
  };
}
