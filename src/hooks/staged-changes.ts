/**
 * What a commit changes, as git reads it: the staged changes (HEAD → index, or a merge parent → index), with
 * renames as renames (a moved file adds nothing: its content was there before), the parents of a merge being
 * committed, and the blobs' contents through one `git cat-file --batch`. Shared by both pre-commit modes
 * (the git hook, and `--files` from the pre-commit framework), so they judge the same change.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** Blobs larger than this are not held in memory to be read: the commit is refused and says so. */
export const MAX_BLOB_BYTES = 256 * 1024 * 1024;
const GIT_MAX_BUFFER = 1024 * 1024 * 1024;

export function git(root: string, args: string[], env: NodeJS.ProcessEnv): string {
  return execFileSync("git", args, {
    cwd: root,
    env,
    encoding: "utf8",
    maxBuffer: GIT_MAX_BUFFER,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** One staged change, from `git diff --cached --raw` (HEAD, or `base`, → index). */
export interface StagedChange {
  path: string;
  /** A rename's (or copy's) source path. */
  oldPath?: string;
  status: string;
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
}

export const ZERO = /^0+$/;

/**
 * Every staged change against HEAD (or `base`, a commit). Renames are found (`-M`): `git mv` of a file that
 * already held a `# noqa`, or of tsconfig.json, adds nothing, where a deletion plus an addition judged every
 * line of it as new and the old config as removed.
 */
export function stagedChanges(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
  base?: string,
): StagedChange[] {
  // `diff --cached` compares the index with HEAD, or with the empty tree on an unborn branch: no base to ask.
  const raw = git(
    root,
    [
      "-c",
      "core.quotepath=off",
      "diff",
      "--cached",
      "--raw",
      "-z",
      "--find-renames",
      "--abbrev=64",
      ...(base ? [base] : []),
      "--",
    ],
    env,
  );
  return parseRawChanges(raw);
}

/**
 * The changes between two refs as the pre-commit framework selects them for `run --from-ref F --to-ref T`
 * and the pre-push stage (`git diff F...T`: from their merge base; `F..T` when they have none).
 */
export function refChanges(root: string, env: NodeJS.ProcessEnv, from: string, to: string): StagedChange[] {
  const diff = (range: string) =>
    git(
      root,
      [
        "-c",
        "core.quotepath=off",
        "diff",
        "--raw",
        "-z",
        "--no-ext-diff",
        "--find-renames",
        "--abbrev=64",
        range,
        "--",
      ],
      env,
    );
  let raw: string;
  try {
    raw = diff(`${from}...${to}`);
  } catch {
    raw = diff(`${from}..${to}`);
  }
  return parseRawChanges(raw);
}

/** `git diff --raw -z` records. */
function parseRawChanges(raw: string): StagedChange[] {
  const parts = raw.split("\0");
  const out: StagedChange[] = [];
  for (let i = 0; i + 1 < parts.length;) {
    const meta = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*$/.exec(parts[i] as string);
    if (!meta) {
      i++;
      continue;
    }
    const status = meta[5] as string;
    // A rename or copy names its source, then its destination.
    const two = status === "R" || status === "C";
    out.push({
      oldMode: meta[1] as string,
      newMode: meta[2] as string,
      oldSha: meta[3] as string,
      newSha: meta[4] as string,
      status,
      path: parts[i + (two ? 2 : 1)] as string,
      ...(two ? { oldPath: parts[i + 1] as string } : {}),
    });
    i += two ? 3 : 2;
  }
  return out;
}

/**
 * The other parents of the merge being committed (MERGE_HEAD: one line per parent, several for an octopus),
 * or none outside a merge.
 */
export function mergeParents(root: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const file = path.resolve(root, git(root, ["rev-parse", "--git-path", "MERGE_HEAD"], env).trim());
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^[0-9a-f]{40,64}$/.test(l));
}

/** Reads blobs through one `git cat-file --batch`, in order; a blob over the cap (or missing) is undefined. */
export async function readBlobs(
  root: string,
  shas: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<(Buffer | undefined)[]> {
  if (shas.length === 0) return [];
  const child = spawn("git", ["cat-file", "--batch"], { cwd: root, env, stdio: ["pipe", "pipe", "ignore"] });
  const results: (Buffer | undefined)[] = [];
  let chunks: Buffer[] = [];
  let have = 0;
  type State = { kind: "header" } | { kind: "body"; size: number } | { kind: "skip"; left: number };
  let state: State = { kind: "header" };
  // Bytes are joined only when a whole header or blob is there, so a large blob is copied once, not per chunk.
  const joined = () => {
    const all = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, have);
    chunks = [all];
    return all;
  };
  const drop = (n: number) => {
    const rest = joined().subarray(n);
    chunks = rest.length ? [rest] : [];
    have = rest.length;
  };
  const done = new Promise<void>((resolve, reject) => {
    child.on("error", reject);
    child.stdout.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      have += chunk.length;
      for (;;) {
        if (state.kind === "header") {
          if (have === 0) break;
          const all = joined();
          const nl = all.indexOf(10);
          if (nl === -1) break;
          const m = /^[0-9a-f]+ \w+ (\d+)$/.exec(all.subarray(0, nl).toString());
          drop(nl + 1);
          if (!m) results.push(undefined);
          else {
            const size = Number(m[1]);
            state = size > MAX_BLOB_BYTES ? { kind: "skip", left: size + 1 } : { kind: "body", size };
          }
        } else if (state.kind === "body") {
          if (have < state.size + 1) break;
          results.push(Buffer.from(joined().subarray(0, state.size)));
          drop(state.size + 1);
          state = { kind: "header" };
        } else {
          const n = Math.min(have, state.left);
          drop(n);
          state = { kind: "skip", left: state.left - n };
          if (state.left > 0) break;
          results.push(undefined);
          state = { kind: "header" };
        }
      }
    });
    child.on("close", () => resolve());
  });
  child.stdin.end(shas.map((s) => `${s}\n`).join(""));
  await done;
  while (results.length < shas.length) results.push(undefined);
  return results;
}

/** Text for the checks; binary content (a NUL in its first 8000 bytes, as git decides) has none. */
export function textOf(blob: Buffer | undefined): string | undefined {
  if (!blob) return undefined;
  return blob.subarray(0, 8000).includes(0) ? undefined : blob.toString("utf8");
}
