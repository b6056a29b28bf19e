/**
 * Links to the checked repository's own files on github.com (`https://github.com/o/r/blob/main/x.md#a`)
 * are checked on disk, like relative links, when the repository's remote is known: they break when the
 * file moves, and requesting them would only ask GitHub about the last pushed commit.
 */
import fs from "node:fs";
import path from "node:path";
import type { Allowlist } from "../../paths/allowlist.js";

export interface GithubRepository {
  owner: string;
  repo: string;
}

const REMOTE_URL = /(?:^|[/@])github\.com[:/]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/i;

/** `owner/repo` of a github.com remote URL (https, ssh or scp-like); undefined for other hosts. */
export function parseGithubRemote(url: string): GithubRepository | undefined {
  const m = REMOTE_URL.exec(url.trim());
  return m ? { owner: m[1] as string, repo: m[2] as string } : undefined;
}

/** The github.com remote in a `.git/config` text: `origin` first, else the first github.com remote. */
export function githubRemoteOf(gitConfig: string): GithubRepository | undefined {
  const remotes: { name: string; url: string }[] = [];
  let section: string | undefined;
  for (const raw of gitConfig.split("\n")) {
    const line = raw.trim();
    const header = /^\[remote\s+"([^"]+)"\]$/.exec(line);
    if (header) section = header[1];
    else if (line.startsWith("[")) section = undefined;
    else if (section !== undefined) {
      const url = /^url\s*=\s*(.+)$/.exec(line)?.[1];
      if (url) remotes.push({ name: section, url });
    }
  }
  const ordered = [
    ...remotes.filter((r) => r.name === "origin"),
    ...remotes.filter((r) => r.name !== "origin"),
  ];
  for (const r of ordered) {
    const repo = parseGithubRemote(r.url);
    if (repo) return repo;
  }
  return undefined;
}

/**
 * Reads `<repoRoot>/.git/config` when `.git` is a real directory inside the allowed roots (a `.git`
 * file or link, as in worktrees, may point anywhere: it is not followed).
 */
export function readGithubRemote(
  repoRoot: string,
  allowlist: Pick<Allowlist, "rootOf">,
): GithubRepository | undefined {
  try {
    const gitDir = path.join(repoRoot, ".git");
    const config = path.join(gitDir, "config");
    if (!allowlist.rootOf(config)) return undefined;
    if (!fs.lstatSync(gitDir).isDirectory() || !fs.lstatSync(config).isFile()) return undefined;
    return githubRemoteOf(fs.readFileSync(config, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * The repository-relative path (and fragment) a github.com blob/tree/raw URL names in `repo`, or
 * undefined for any other URL. The ref is taken to be one path segment (`main`, a tag, a commit).
 */
export function githubLinkTarget(
  url: string,
  repo: GithubRepository,
): { path: string; fragment: string | undefined } | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.hostname.toLowerCase() !== "github.com") return undefined;
  const parts = u.pathname.split("/").filter(Boolean);
  if (parts.length < 3) return undefined;
  const [owner, name, kind, , ...rest] = parts;
  if (owner?.toLowerCase() !== repo.owner.toLowerCase() || name?.toLowerCase() !== repo.repo.toLowerCase())
    return undefined;
  if (kind !== "blob" && kind !== "tree" && kind !== "raw") return undefined;
  if (parts.length < 4) return undefined;
  const fragment = u.hash ? u.hash.slice(1) : undefined;
  return { path: rest.join("/"), fragment };
}
