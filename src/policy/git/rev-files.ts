/**
 * The work-tree files a rewrite (rewrites.ts) would change, and the text each would get, asked of git through
 * the safe runner (src/exec/git-safety.ts): the source's files are listed from git's objects and index only
 * (`ls-tree`, `ls-files`, `diff-tree`), never by hashing the work tree through git (that runs a repository's
 * clean filters); each is compared with the file on disk here (git's blob hash of its bytes), so a file that
 * would not change is not a write. Bounded: past the limits the answer is undecided.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { safeGitArgs } from "../../exec/git-safety.js";
import type { RewriteLookup, RewrittenFile } from "./invocation.js";

/** Entries of the source listed at most; past it the rewrite is too large to judge file by file. */
const MAX_ENTRIES = 20_000;
/** Bytes of work-tree files read to tell unchanged ones apart. */
const MAX_HASHED_BYTES = 64 * 1024 * 1024;
/** A new content larger than this is judged by its name only (as any write's). */
const MAX_TEXT_BYTES = 1024 * 1024;
const MAX_TEXT_TOTAL = 16 * 1024 * 1024;

interface Entry {
  mode: string;
  sha: string;
  path: string;
}

function runGit(top: string, args: string[], input?: string): Buffer | undefined {
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_") || k === "GIT_EXEC_PATH"),
    ),
    GIT_TERMINAL_PROMPT: "0",
  };
  const run = spawnSync("git", safeGitArgs(args), {
    cwd: top,
    env,
    timeout: 5000,
    maxBuffer: 64 * 1024 * 1024,
    stdio: [input === undefined ? "ignore" : "pipe", "pipe", "ignore"],
    ...(input !== undefined ? { input } : {}),
  });
  return run.status === 0 ? run.stdout : undefined;
}

/** `ls-tree -r -z` / `ls-files -s -z` records: `mode SP (type|sha) SP (sha|stage) TAB path`. */
export function parseEntries(out: string, format: "ls-tree" | "ls-files"): Entry[] {
  const entries: Entry[] = [];
  for (const record of out.split("\0")) {
    const tab = record.indexOf("\t");
    if (tab === -1) continue;
    const [mode, second, third] = record.slice(0, tab).split(" ");
    const file = record.slice(tab + 1);
    if (format === "ls-tree") {
      if (second === "blob") entries.push({ mode: mode as string, sha: third as string, path: file });
    } else if (third === "0" && mode !== "160000")
      entries.push({ mode: mode as string, sha: second as string, path: file });
  }
  return entries;
}

/** `diff-tree -r -z --raw` records: `:old new oldsha newsha X` NUL path NUL. */
export function parseRawDiff(out: string): { entries: Entry[]; deleted: string[] } {
  const parts = out.split("\0");
  const entries: Entry[] = [];
  const deleted: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const m = /^:\d{6} (\d{6}) [0-9a-f]+ ([0-9a-f]+) ([A-Z])/.exec(parts[i] as string);
    if (!m) {
      i--;
      continue;
    }
    const file = parts[i + 1] as string;
    if (m[3] === "D") deleted.push(file);
    else if (m[1] !== "160000") entries.push({ mode: m[1] as string, sha: m[2] as string, path: file });
  }
  return { entries, deleted };
}

/** git's object name of these bytes as a blob (SHA-1, or SHA-256 in a repository that uses it). */
export function blobSha(bytes: Buffer, algorithm: "sha1" | "sha256"): string {
  return createHash(algorithm).update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** `cat-file --batch` output: each object's header and bytes, in order. */
export function parseBatch(out: Buffer): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  let at = 0;
  while (at < out.length) {
    const nl = out.indexOf(10, at);
    if (nl === -1) break;
    const m = /^([0-9a-f]+) \w+ (\d+)$/.exec(out.subarray(at, nl).toString());
    at = nl + 1;
    if (!m) continue;
    const size = Number(m[2]);
    blobs.set(m[1] as string, out.subarray(at, at + size));
    at += size + 1;
  }
  return blobs;
}

/** What is on disk at `file` as git would store it (a link's target), or undefined when nothing is there. */
function onDisk(file: string): Buffer | undefined | "unreadable" {
  try {
    const st = fs.lstatSync(file);
    if (st.isSymbolicLink()) return Buffer.from(fs.readlinkSync(file));
    if (!st.isFile()) return "unreadable";
    return fs.readFileSync(file);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? undefined : "unreadable";
  }
}

/** The lookup the checks use. */
export const gitRewrittenFiles: RewriteLookup = (spec, cwd) => {
  if (cwd === undefined) return { undecided: "the repository it rewrites is only known when the line runs" };
  const topOut = runGit(cwd, ["rev-parse", "--show-toplevel"]);
  if (topOut === undefined) return { undecided: `git could not read the repository at ${cwd}` };
  const top = topOut.toString().trim();
  const paths: string[] = [];
  for (const p of spec.paths) {
    const rel = path.relative(top, path.resolve(cwd, p));
    if (rel.startsWith("..") || path.isAbsolute(rel)) return { undecided: `${p} is outside the repository` };
    paths.push(rel === "" ? "." : rel);
  }
  const pathspec = ["--", ...paths];
  const text = (b: Buffer | undefined) => b?.toString("utf8");
  let entries: Entry[];
  let deleted: string[] = [];
  const source = spec.source;
  if (source.kind === "stash" || source.kind === "tree") {
    const what = source.kind === "stash" ? "commit" : "tree";
    const sha = text(runGit(top, ["rev-parse", "-q", "--verify", `${source.rev}^{${what}}`]))?.trim();
    if (!sha) {
      if (spec.revMayBePath)
        return gitRewrittenFiles(
          { ...spec, source: { kind: "index" }, paths: [source.rev, ...spec.paths], revMayBePath: false },
          cwd,
        );
      // git fails on it (the line cannot make it first: an earlier git command of the line makes the
      // rewrite undecided, and a file written under .git is judged as such).
      return { files: [] };
    }
    if (source.kind === "tree") {
      const out = text(runGit(top, ["ls-tree", "-r", "-z", "--full-tree", sha, ...pathspec]));
      if (out === undefined) return { undecided: `git could not list ${source.rev}` };
      entries = parseEntries(out, "ls-tree");
    } else {
      const out = text(runGit(top, ["diff-tree", "-r", "-z", "--raw", "--no-renames", `${sha}^1`, sha]));
      if (out === undefined) return { undecided: `git could not read the stash ${source.rev}` };
      ({ entries, deleted } = parseRawDiff(out));
      // Untracked files the stash holds (`stash -u`) are its third parent's tree.
      const untracked = text(runGit(top, ["rev-parse", "-q", "--verify", `${sha}^3^{tree}`]))?.trim();
      if (untracked) {
        const more = text(runGit(top, ["ls-tree", "-r", "-z", "--full-tree", untracked]));
        if (more === undefined) return { undecided: `git could not list the stash's untracked files` };
        entries.push(...parseEntries(more, "ls-tree"));
      }
    }
  } else {
    const out = text(runGit(top, ["ls-files", "-s", "-z", ...pathspec]));
    if (out === undefined) return { undecided: "git could not read the index" };
    entries = parseEntries(out, "ls-files");
  }
  if (spec.deletes) {
    const out = text(runGit(top, ["ls-files", "-z", ...pathspec]));
    if (out === undefined) return { undecided: "git could not read the index" };
    const kept = new Set(entries.map((e) => e.path));
    deleted.push(...out.split("\0").filter((f) => f !== "" && !kept.has(f)));
  }
  if (entries.length + deleted.length > MAX_ENTRIES)
    return { undecided: `it rewrites more than ${MAX_ENTRIES} files` };
  // A prefix is prepended as text (`checkout-index --prefix=.merged_` names files, not a folder).
  const at = (file: string) =>
    spec.prefix === undefined
      ? path.join(top, file)
      : path.resolve(spec.prefix.from === "top" ? top : cwd, spec.prefix.text + file);
  const files: RewrittenFile[] = [];
  const changed: Entry[] = [];
  let hashed = 0;
  for (const e of entries) {
    const file = at(e.path);
    const now = onDisk(file);
    if (now !== undefined && !spec.overwrite) continue;
    if (now instanceof Buffer) {
      hashed += now.length;
      if (hashed > MAX_HASHED_BYTES)
        return { undecided: `the files it rewrites are over ${MAX_HASHED_BYTES} bytes to compare` };
      if (blobSha(now, e.sha.length === 64 ? "sha256" : "sha1") === e.sha) continue;
    }
    changed.push(e);
  }
  for (const f of deleted) {
    const file = at(f);
    if (onDisk(file) !== undefined) files.push({ path: file, kind: "delete" });
  }
  const blobs = blobTexts(top, changed);
  for (const e of changed) {
    const blob = blobs.get(e.sha);
    const isText = blob !== undefined && !blob.subarray(0, 8000).includes(0);
    files.push({
      path: at(e.path),
      kind: "write",
      ...(isText ? { text: blob.toString("utf8") } : {}),
    });
  }
  return { files };
};

/** The new contents of the changed entries, read through one `cat-file --batch` (bounded). */
function blobTexts(top: string, changed: readonly Entry[]): Map<string, Buffer> {
  if (changed.length === 0) return new Map();
  const shas = [...new Set(changed.map((e) => e.sha))];
  const check = runGit(top, ["cat-file", "--batch-check"], shas.map((s) => `${s}\n`).join(""));
  if (check === undefined) return new Map();
  const wanted: string[] = [];
  let total = 0;
  for (const line of check.toString().split("\n")) {
    const m = /^([0-9a-f]+) blob (\d+)$/.exec(line);
    if (!m || Number(m[2]) > MAX_TEXT_BYTES || total + Number(m[2]) > MAX_TEXT_TOTAL) continue;
    total += Number(m[2]);
    wanted.push(m[1] as string);
  }
  if (wanted.length === 0) return new Map();
  const out = runGit(top, ["cat-file", "--batch"], wanted.map((s) => `${s}\n`).join(""));
  return out === undefined ? new Map() : parseBatch(out);
}
