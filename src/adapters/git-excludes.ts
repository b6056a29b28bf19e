/**
 * git's own excludes, which ty and ruff honour as git does (measured: ty 0.0.108, ruff 0.17.6 skip a file
 * listed in either): the repository's `info/exclude` and the global excludes file (`core.excludesFile` of
 * the global git config, by default `$XDG_CONFIG_HOME/git/ignore`, else `~/.config/git/ignore`). They lie
 * outside every walk (in the git dir, in the home), so before they were in no key: an edit of one kept the
 * cached findings on the file it excludes. Both the per-file keys (cached-run.ts configIdentity) and the
 * whole-program ones (whole-program.ts) hold them.
 *
 * What is read: the git dir's files inside the allowed root, and in the home only what the sandbox shows
 * every tool (`~/.gitconfig`, `~/.config/git`, exec/sandbox/host.ts); an excludes file elsewhere is keyed by
 * its path alone (a sandboxed tool cannot read it either).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isWithin } from "../paths/allowlist.js";
import { gitDirAt, readGitLink } from "../paths/dot-git.js";
import { sha256 } from "../cache/hash.js";

/** The value of `core.excludesFile` in a git config's text (the last one), `~/` expanded; undefined if none. */
export function excludesFileOf(text: string, home: string): string | undefined {
  let section = "";
  let value: string | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/(^|\s)[#;].*$/, "").trim();
    const header = /^\[\s*([\w.-]+)(?:\s+"[^"]*")?\s*\]/.exec(line);
    if (header) {
      section = (header[1] ?? "").toLowerCase();
      continue;
    }
    const kv = /^([\w-]+)\s*=\s*(.*)$/.exec(line);
    if (section === "core" && kv && kv[1]?.toLowerCase() === "excludesfile") {
      const v = (kv[2] ?? "").replace(/^"(.*)"$/, "$1");
      value = v.startsWith("~/") ? path.join(home, v.slice(2)) : v;
    }
  }
  return value;
}

/** The top of the git work tree holding `project`, searched up to `root`; undefined when there is none. */
function workTreeTop(project: string, root: string): string | undefined {
  for (let dir = project; isWithin(root, dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, ".git"))) return dir;
    if (dir === root || dir === path.dirname(dir)) break;
  }
  return undefined;
}

/** A file's content hash, or null when absent; `"unread"` when the server may not read it. */
function hashOf(file: string, readable: (real: string) => boolean): string | null {
  let real: string;
  try {
    real = fs.realpathSync.native(file);
  } catch {
    return null;
  }
  if (!readable(real)) return "unread";
  try {
    return sha256(fs.readFileSync(real));
  } catch {
    return null;
  }
}

/**
 * The key part of git's excludes for `project`: each source by its role (not its path, so another checkout
 * or home shares the key; NUL-prefixed, never a file's relative path) and its content hash: the work tree's `info/exclude` (its common dir's for a
 * linked worktree), the global git configs that may name `core.excludesFile`, and the excludes file.
 */
export function gitExcludesKey(
  project: string,
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): [string, string | null][] {
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir();
  const shown = [path.join(home, ".gitconfig"), path.join(home, ".config", "git")];
  const readable = (real: string) =>
    isWithin(root, real) || shown.some((s) => real === s || isWithin(s, real));
  const out: [string, string | null][] = [];
  const top = workTreeTop(project, root);
  const gitDir = top && gitDirAt(top);
  if (gitDir) {
    const common = readGitLink(path.join(gitDir, "commondir"), gitDir) ?? gitDir;
    out.push(["\0git info/exclude", hashOf(path.join(common, "info", "exclude"), readable)]);
  }
  const xdg = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : undefined;
  const configs = [
    path.join(xdg ?? path.join(home, ".config"), "git", "config"),
    path.join(home, ".gitconfig"),
  ];
  let excludes: string | undefined;
  for (const config of configs) {
    const hash = hashOf(config, readable);
    out.push([`\0git config ${config === configs[1] ? "~/.gitconfig" : "xdg"}`, hash]);
    if (hash === null || hash === "unread") continue;
    try {
      excludes = excludesFileOf(fs.readFileSync(config, "utf8"), home) ?? excludes;
    } catch {
      // gone since: its hash says so next time
    }
  }
  const file = excludes ?? path.join(xdg ?? path.join(home, ".config"), "git", "ignore");
  const hash = hashOf(file, readable);
  out.push(["\0git excludes file", hash === "unread" ? `unread:${file}` : hash]);
  return out;
}
