/**
 * git pre-commit hook: judges what the commit will contain, the staged content (the index), never the work
 * tree. Every staged change (added, copied, modified, deleted, type-changed: a CI file replaced by a
 * symlink), whatever the number of files or their size, is checked against the bundle as an edit from its
 * HEAD version to its staged version (protected paths, suppressions, weakened configs, secrets), then the
 * staged files are linted with the engine's `lint_check` (scope staged: a file whose work tree differs from
 * its staged version is linted from the index). Exit 1 refuses the commit; a failure of the hook refuses too.
 *
 * With `--files FILE...` (what the pre-commit framework passes: .pre-commit-hooks.yaml) it judges those files
 * as they are in the work tree, committed or not, by the policy's content checks (the compiled policy lint,
 * src/policy/policy-lint.ts, as lint_check runs it on files given: a file is judged by what it holds, not by
 * its path); linting them is the `check --files` hook's part.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Bundle } from "../policy/bundle.js";
import { checkEdit } from "../policy/checks.js";
import { compileBundle, PROJECT_POLICY_FILE } from "../policy/compile.js";
import type { PolicyLintFile } from "../policy/policy-lint.js";
import type { StagedView } from "../adapters/git-changed.js";
import type { EngineKeeper, LintReport } from "./pre-commit-lint.js";
import { projectPolicyFile } from "../policy/runtime.js";

/**
 * A human's confirmation that the commit may hold protected paths (hooks, CI, agent settings): the rules
 * about what an agent may edit are the agent hook's; this hook judges content and asks the human about paths.
 */
export const ALLOW_PROTECTED = "MCQ_ALLOW_PROTECTED";

/** What the pre-commit hook does with a policy's violation (its `on_commit`: judge by default). */
function onCommitOf(bundle: Bundle, policyId: string): "judge" | "confirm" | "skip" {
  return bundle.data.policies.find((p) => p.id === policyId)?.on_commit ?? "judge";
}

/** Blobs larger than this are not held in memory to be read: the commit is refused and says so. */
const MAX_BLOB_BYTES = 256 * 1024 * 1024;
const GIT_MAX_BUFFER = 1024 * 1024 * 1024;

/**
 * git's stdout for `args` in `root`, without blocking: it runs while the hook does other work. `env` is the
 * hook's: the index git named for this commit (GIT_INDEX_FILE) is the one read.
 */
function gitAsync(root: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile("git", args, { cwd: root, env, encoding: "utf8", maxBuffer: GIT_MAX_BUFFER }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    ),
  );
}

function git(root: string, args: string[], env: NodeJS.ProcessEnv): string {
  return execFileSync("git", args, {
    cwd: root,
    env,
    encoding: "utf8",
    maxBuffer: GIT_MAX_BUFFER,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** One staged change, from `git diff --cached --raw` (HEAD → index). */
export interface StagedChange {
  path: string;
  status: string;
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
}

const ZERO = /^0+$/;

/** Every staged change, renames as a deletion and an addition (both paths are judged). */
export function stagedChanges(root: string, env: NodeJS.ProcessEnv = process.env): StagedChange[] {
  // `diff --cached` compares the index with HEAD, or with the empty tree on an unborn branch: no base to ask.
  const raw = git(
    root,
    ["-c", "core.quotepath=off", "diff", "--cached", "--raw", "-z", "--no-renames", "--abbrev=64", "--"],
    env,
  );
  const parts = raw.split("\0");
  const out: StagedChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*$/.exec(parts[i] as string);
    if (!meta) continue;
    out.push({
      oldMode: meta[1] as string,
      newMode: meta[2] as string,
      oldSha: meta[3] as string,
      newSha: meta[4] as string,
      status: meta[5] as string,
      path: parts[i + 1] as string,
    });
  }
  return out;
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
function textOf(blob: Buffer | undefined): string | undefined {
  if (!blob) return undefined;
  return blob.subarray(0, 8000).includes(0) ? undefined : blob.toString("utf8");
}

/** The shipped bundle (no project policy file), compiled once per process: the daemon judges many commits. */
const shipped = new Map<boolean, Promise<Bundle>>();

async function bundleFor(root: string, allowLoosening: boolean): Promise<Bundle> {
  const projectFile = projectPolicyFile(root);
  if (projectFile) return compileBundle({ projectFile, allowLoosening, lazy: false });
  let bundle = shipped.get(allowLoosening);
  if (!bundle) {
    bundle = compileBundle({ allowLoosening, lazy: true });
    shipped.set(allowLoosening, bundle);
    bundle.catch(() => shipped.delete(allowLoosening));
  }
  return bundle;
}

/**
 * MCP_CODE_QUALITY_HOOK_TIMINGS=1: the hook says on stderr when each part of it ended (ms since the process
 * started, or in the daemon since the request came), to see where a slow commit waits.
 */
function timer(env: NodeJS.ProcessEnv, since: number) {
  const timings: string[] = [];
  return {
    mark: (what: string) => {
      if (env.MCP_CODE_QUALITY_HOOK_TIMINGS) timings.push(`${what} ${Math.round(performance.now() - since)}`);
    },
    line: () => (timings.length ? `mcp-code-quality pre-commit timings (ms): ${timings.join(", ")}\n` : ""),
  };
}

const allowsLoosening = (env: NodeJS.ProcessEnv) =>
  /^(1|true|yes|on)$/i.test(env.MCP_CODE_QUALITY_POLICY_ALLOW_LOOSENING ?? "");

/**
 * Where a hook runs and reports: this process's working directory and stderr, or (in the daemon, for a
 * client's commit) the client's.
 */
export interface HookIo {
  cwd: string;
  stderr: (text: string) => void;
  /** What the timings count from (performance.now()): 0, the process's start, unless given. */
  since?: number;
  /** Engines kept between commits (the check daemon's), else the lint's engine is made and closed. */
  engines?: EngineKeeper;
}

const processIo = (): HookIo => ({ cwd: process.cwd(), stderr: (t) => void process.stderr.write(t) });

/**
 * `hook pre-commit [--files FILE...]`: exit 0 to let the commit through, 1 to refuse it (3: the install probe).
 * `env` is the hook's environment, git's per-commit variables included: every git it runs gets it.
 */
export async function runPreCommitHook(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = [],
  io: HookIo = processIo(),
): Promise<number> {
  // The probe of `hook install pre-commit`: the installed hook reached this line.
  if (env.MCP_CODE_QUALITY_HOOK_PROBE) {
    io.stderr(`mcp-code-quality pre-commit probe ${env.MCP_CODE_QUALITY_HOOK_PROBE}\n`);
    return 3;
  }
  if (argv[0] === "--files") return runOnFiles(argv.slice(1), env, io);
  if (argv.length) {
    io.stderr(
      `mcp-code-quality pre-commit: unexpected ${JSON.stringify(argv[0])}; give --files FILE... or nothing (the staged changes)\n`,
    );
    return 1;
  }
  const out: string[] = [];
  let refused = false;
  const { mark, line: timingLine } = timer(env, io.since ?? 0);
  try {
    const root = git(io.cwd, ["rev-parse", "--show-toplevel"], env).trim();
    const changes = stagedChanges(root, env);
    // The linters run in the engine while the policies judge the edits here: the linters' processes and the
    // policy checks overlap instead of adding up. Their report comes after the policies', as before.
    const linted = changes
      .filter((c) => c.status !== "D" && c.newMode !== "120000" && c.newMode !== "160000")
      .map((c) => c.path);
    // What differs from the index is asked while the lint's modules load (an await, not a blocking call).
    const lint = lintAlongside(root, linted, env, io.engines, () => ({
      top: root,
      // As lint_check's own staged scope lists them (git-changed.ts: added, copied, modified, renamed).
      staged: changes.filter((c) => "ACMR".includes(c.status)).map((c) => c.path),
      differing: gitAsync(root, ["-c", "core.quotepath=off", "diff", "--name-only", "-z", "--"], env).then(
        (out) => new Set(out.split("\0").filter(Boolean)),
      ),
    }));
    // Awaited in the end; a failure before then must not be reported as unhandled.
    lint.catch(() => {});
    mark("staged changes listed");
    const bundle = await bundleFor(root, allowsLoosening(env));
    const confirmed = /^(1|true|yes|on)$/i.test(env[ALLOW_PROTECTED] ?? "");
    mark("policy bundle");
    const blobs = await readBlobs(
      root,
      changes.flatMap((c) => [c.oldSha, c.newSha]).filter((s) => !ZERO.test(s)),
      env,
    );
    let k = 0;
    for (const change of changes) {
      const before = ZERO.test(change.oldSha) ? undefined : blobs[k++];
      const after = ZERO.test(change.newSha) ? undefined : blobs[k++];
      const tooLarge =
        (!ZERO.test(change.oldSha) && before === undefined) ||
        (!ZERO.test(change.newSha) && after === undefined);
      if (tooLarge) {
        refused = true;
        out.push(
          `${change.path}: staged content over ${MAX_BLOB_BYTES} bytes (or unreadable): it is not checked, so the commit is refused`,
        );
        continue;
      }
      const symlink = change.newMode === "120000" || change.oldMode === "120000";
      const outcome = await checkEdit(
        bundle,
        {
          path: change.path,
          // A symlink's content is its target; binary content has no text to judge (its path still is).
          before: ZERO.test(change.oldSha) ? undefined : (textOf(before) ?? ""),
          after: textOf(after) ?? "",
          header: (textOf(before) ?? textOf(after) ?? "").slice(0, 8192),
          writeKind: change.status === "D" ? "delete" : "edit",
        },
        { absolute: path.join(root, change.path), roots: [root], resolve: false },
      );
      const kind =
        change.status === "T"
          ? ` (type change${symlink ? " to or from a symbolic link" : ""})`
          : change.status === "D"
            ? " (deleted)"
            : "";
      for (const v of outcome.violations) {
        const onCommit = onCommitOf(bundle, v.policy_id);
        if (onCommit === "skip") continue;
        if (onCommit === "confirm" && v.severity === "block") {
          if (confirmed) {
            out.push(`${change.path}${kind}: ${v.policy_id} [confirmed] committed with ${ALLOW_PROTECTED}=1`);
            continue;
          }
          refused = true;
          out.push(
            `${change.path}${kind}: ${v.policy_id} [confirm] ${v.message}\n  This rule is about what an agent may edit. If you are the human and mean to commit this file, run: ${ALLOW_PROTECTED}=1 git commit …`,
          );
          continue;
        }
        if (v.severity === "block") refused = true;
        out.push(
          `${change.path}${kind}: ${v.policy_id} [${v.severity}] ${v.message}\n  advice: ${v.advice}${v.skill_id ? `\n  skill: ${v.skill_id}` : ""}`,
        );
      }
    }
    mark("policies judged");
    const report = await lint;
    mark("lint done");
    refused = report.refused || refused;
    out.push(...report.lines);
    io.stderr(
      (out.length ? out.join("\n") + "\n" : "") +
        `mcp-code-quality pre-commit (${bundle.hash}): ${refused ? "commit refused" : `${changes.length} staged change(s) passed`}\n` +
        timingLine(),
    );
  } catch (err) {
    io.stderr(
      `mcp-code-quality pre-commit failed, so the commit is refused: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
  return refused ? 1 : 0;
}

/**
 * `--files`: the policy's content checks on each file as it is in the work tree, committed or not (a bad file
 * already committed is found by `pre-commit run --all-files`). Binary files have no text to judge; a file
 * over the blob cap, or one that cannot be read, refuses the commit, unchecked.
 */
async function runOnFiles(files: readonly string[], env: NodeJS.ProcessEnv, io: HookIo): Promise<number> {
  const out: string[] = [];
  let refused = false;
  try {
    const cwd = io.cwd;
    let root: string;
    try {
      root = git(cwd, ["rev-parse", "--show-toplevel"], env).trim();
    } catch {
      root = cwd;
    }
    const bundle = await bundleFor(root, allowsLoosening(env));
    const judged: PolicyLintFile[] = [];
    for (const name of files) {
      const absolute = path.resolve(cwd, name);
      const st = fs.lstatSync(absolute, { throwIfNoEntry: false });
      // A deleted file holds nothing; a link's content is a path, judged where it points (a file given too).
      if (!st || !st.isFile()) continue;
      if (st.size > MAX_BLOB_BYTES) {
        refused = true;
        out.push(`${name}: over ${MAX_BLOB_BYTES} bytes: it is not checked, so the commit is refused`);
        continue;
      }
      const text = textOf(fs.readFileSync(absolute));
      if (text === undefined) continue;
      judged.push({ absolute, path: path.relative(root, absolute).split(path.sep).join("/"), after: text });
    }
    const { policyLint } = await import("../policy/policy-lint.js");
    for (const f of await policyLint(bundle, judged, [root])) {
      if (f.severity === "error") refused = true;
      const policy = bundle.policy(f.policy_id);
      out.push(
        `${path.relative(cwd, f.file) || f.file}:${f.line}: ${f.policy_id} [${policy?.severity ?? f.severity}] ${f.message}\n  advice: ${f.advice}${policy?.skill ? `\n  skill: ${policy.skill}` : ""}`,
      );
    }
    io.stderr(
      (out.length ? out.join("\n") + "\n" : "") +
        `mcp-code-quality policy (${bundle.hash}): ${refused ? "refused" : `${judged.length} file(s) passed`}\n`,
    );
  } catch (err) {
    io.stderr(
      `mcp-code-quality policy check failed, so the commit is refused: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
  return refused ? 1 : 0;
}

/**
 * lint_check on the staged files (src/hooks/pre-commit-lint.ts), started before the policies judge the edits
 * so that its processes run while they do. (A worker thread for it was measured: 35% more CPU, as the
 * thread loads its modules again, and slower on a busy machine; so it stays in this thread.)
 */
async function lintAlongside(
  root: string,
  staged: string[],
  env: NodeJS.ProcessEnv,
  engines: EngineKeeper | undefined,
  view: () => Omit<StagedView, "differing" | "gitEnv"> & { differing: Promise<ReadonlySet<string>> },
): Promise<LintReport> {
  if (staged.length === 0) return { refused: false, lines: [] };
  const lines: string[] = [];
  const asked = view();
  const [{ lintStaged }, differing] = await Promise.all([import("./pre-commit-lint.js"), asked.differing]);
  // The git that lint_check runs to read a staged file reads the index this commit's git named.
  const gitEnv = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[0].startsWith("GIT_") && e[1] !== undefined),
  );
  return {
    refused: await lintStaged(root, staged, lines, { ...asked, differing, gitEnv }, env, engines),
    lines,
  };
}

export { PROJECT_POLICY_FILE };
