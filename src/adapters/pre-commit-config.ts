/**
 * A project's `.pre-commit-config.yaml` as pre-commit reads it, for running a tool the way the project's own
 * pre-commit runs it: each hook's id, entry, args and `pass_filenames`, and which files it is handed (the
 * top-level `files`/`exclude` and the hook's own, Python regexes searched in the path relative to the
 * repository's top). The patterns run on RE2 (re2js: linear time, whatever a project writes); one RE2 cannot
 * compile (a look-around) makes the selection unknown, and the caller says so instead of guessing. Pure.
 */
import fs from "node:fs";
import path from "node:path";
import { RE2JS } from "re2js";
import { yaml } from "../yaml-lazy.js";

export const PRE_COMMIT_CONFIG = ".pre-commit-config.yaml";
const MAX_CONFIG_BYTES = 256 * 1024;

export interface PreCommitHook {
  id: string;
  /** The repository the hook comes from (`repo:`) and the revision pinned (`rev:`). */
  repo?: string;
  rev?: string;
  entry?: string;
  args: string[];
  /** pre-commit hands the hook the files it selects (true unless `pass_filenames: false`). */
  passFilenames: boolean;
  files?: string;
  exclude?: string;
}

export interface PreCommitConfig {
  files?: string;
  exclude?: string;
  hooks: PreCommitHook[];
}

const text = (v: unknown) => (typeof v === "string" ? v : undefined);

/** The hooks and file patterns of a config's text; undefined when it is not a pre-commit config. */
export function parsePreCommitConfig(source: string): PreCommitConfig | undefined {
  let config: unknown;
  try {
    config = yaml().parse(source);
  } catch {
    return undefined;
  }
  const top = config as Record<string, unknown> | null;
  if (!top || typeof top !== "object" || !Array.isArray(top.repos)) return undefined;
  const hooks: PreCommitHook[] = [];
  for (const repo of top.repos as { hooks?: unknown; repo?: unknown; rev?: unknown }[])
    for (const hook of Array.isArray(repo?.hooks) ? (repo.hooks as Record<string, unknown>[]) : []) {
      const id = text(hook?.id);
      if (!id) continue;
      hooks.push({
        id,
        ...(text(repo.repo) ? { repo: text(repo.repo) } : {}),
        ...(text(repo.rev) ? { rev: text(repo.rev) } : {}),
        entry: text(hook.entry),
        args: Array.isArray(hook.args) ? hook.args.filter((a): a is string => typeof a === "string") : [],
        passFilenames: hook.pass_filenames !== false,
        files: text(hook.files),
        exclude: text(hook.exclude),
      });
    }
  return { files: text(top.files), exclude: text(top.exclude), hooks };
}

/**
 * Repositories whose hooks run the tool at the version their `rev` names (the tool's own release tags, or
 * a mirror tagged the same), by the tool they run.
 */
const VERSIONED_MIRRORS: Record<string, string> = {
  "github.com/psf/black-pre-commit-mirror": "black",
  "github.com/psf/black": "black",
  "github.com/pre-commit/mirrors-mypy": "mypy",
  "github.com/astral-sh/ruff-pre-commit": "ruff",
  "github.com/pycqa/flake8": "flake8",
};

/**
 * The tool and version a hook pins, when its repository is one whose `rev` is the tool's version
 * (`psf/black-pre-commit-mirror` at `26.5.1`: black 26.5.1; `pre-commit/mirrors-mypy` at `v2.3.1`: mypy
 * 2.3.1); undefined for any other (a commit hash, a local hook). Pure.
 */
export function pinnedTool(hook: PreCommitHook): { tool: string; version: string } | undefined {
  const repo = hook.repo
    ?.toLowerCase()
    .replace(/^(?:https?:\/\/|git@)/, "")
    .replace(/^github\.com:/, "github.com/")
    .replace(/(?:\.git)?\/*$/, "");
  const tool = repo ? VERSIONED_MIRRORS[repo] : undefined;
  const version = /^v?(\d+(?:\.\d+)*)$/.exec(hook.rev ?? "")?.[1];
  return tool && version ? { tool, version } : undefined;
}

/** The config at the top of a repository, when there is one (read once, bounded). */
export function readPreCommitConfig(top: string): PreCommitConfig | undefined {
  const file = path.join(top, PRE_COMMIT_CONFIG);
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.size > MAX_CONFIG_BYTES) return undefined;
    return parsePreCommitConfig(fs.readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Which repository paths (relative to its top, `/`-separated) pre-commit hands `hook`: those the `files`
 * patterns search (pre-commit's default: every one) and the `exclude` patterns do not, the config's and
 * the hook's. Undefined when a pattern is not one RE2 runs.
 */
export function hookSelector(
  config: PreCommitConfig,
  hook: PreCommitHook,
): ((relative: string) => boolean) | undefined {
  try {
    const compile = (p: string | undefined) => (p ? RE2JS.compile(withoutVerboseFlag(p)) : undefined);
    const include = [compile(config.files), compile(hook.files)];
    const exclude = [compile(config.exclude), compile(hook.exclude)];
    return (rel) =>
      include.every((r) => !r || r.matcher(rel).find()) && exclude.every((r) => !r || !r.matcher(rel).find());
  } catch {
    return undefined;
  }
}

/**
 * A Python regex written in verbose mode (a leading `(?x)`, as pre-commit configs spread a long `exclude`
 * over lines) as the same pattern without it, which RE2 has no flag for: whitespace outside a character
 * class and not escaped is dropped, and so is a `#` comment to the end of its line. Other patterns are
 * returned as they are. Pure.
 */
export function withoutVerboseFlag(pattern: string): string {
  const flag = /^\(\?([a-zA-Z]*)x([a-zA-Z]*)\)/.exec(pattern);
  if (!flag) return pattern;
  const others = `${flag[1]}${flag[2]}`;
  let out = others ? `(?${others})` : "";
  let inClass = false;
  for (let i = flag[0].length; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "\\") {
      out += c + (pattern[i + 1] ?? "");
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
      // A `]` first in a class (or after `^`) is a literal.
      if (pattern[i + 1] === "^") out += pattern[++i];
      if (pattern[i + 1] === "]") out += pattern[++i];
    } else if (c === "#") {
      while (i + 1 < pattern.length && pattern[i + 1] !== "\n") i++;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
}

/** The patterns that decide a hook's files, as a note shows them. */
export function selectionNote(config: PreCommitConfig, hook: PreCommitHook): string {
  // A pattern spread over lines (verbose mode) on one line.
  const shown = (p: string) => p.trim().replace(/\s*\n\s*/g, " ");
  const parts = [
    config.files && `files ${shown(config.files)}`,
    config.exclude && `exclude ${shown(config.exclude)}`,
    hook.files && `the hook's files ${shown(hook.files)}`,
    hook.exclude && `the hook's exclude ${shown(hook.exclude)}`,
  ].filter(Boolean);
  return parts.length ? parts.join(", ") : "every file";
}
