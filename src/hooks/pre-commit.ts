/**
 * git pre-commit hook: judges what the commit will contain, the staged content (the index), never the work
 * tree. Every staged change (added, copied, modified, deleted, type-changed: a CI file replaced by a
 * symlink), whatever the number of files or their size, is checked against the bundle as an edit from its
 * HEAD version to its staged version (protected paths, suppressions, weakened configs, secrets), then the
 * staged files are linted with the engine's `lint_check` (scope staged: a file whose work tree differs from
 * its staged version is linted from the index). Exit 1 refuses the commit; a failure of the hook refuses too.
 *
 * With `--files FILE...` (what the pre-commit framework passes: .pre-commit-hooks.yaml) it judges the staged
 * changes of those files the same way (src/hooks/staged-judge.ts); linting them is the `check --files` hook's
 * part.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import type { Bundle } from "../policy/bundle.js";
import { compileBundle, PROJECT_POLICY_FILE } from "../policy/compile.js";
import type { StagedView } from "../adapters/git-changed.js";
import type { EngineKeeper, LintReport } from "./pre-commit-lint.js";
import { projectPolicyFile } from "../policy/runtime.js";
import { git, refChanges, stagedChanges } from "./staged-changes.js";
import { ALLOW_PROTECTED, judgeStaged } from "./staged-judge.js";

export { ALLOW_PROTECTED };
export { readBlobs, stagedChanges, type StagedChange } from "./staged-changes.js";

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
    mark("policy bundle");
    const judgment = await judgeStaged(bundle, root, changes, env);
    out.push(...judgment.lines);
    mark("policies judged");
    const report = await lint;
    mark("lint done");
    const refused = report.refused || judgment.refused;
    out.push(...report.lines);
    io.stderr(
      (out.length ? out.join("\n") + "\n" : "") +
        `mcp-code-quality pre-commit (${bundle.hash}): ${refused ? "commit refused" : `${changes.length} staged change(s) passed`}\n` +
        timingLine(),
    );
    return refused ? 1 : 0;
  } catch (err) {
    io.stderr(
      `mcp-code-quality pre-commit failed, so the commit is refused: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
}

/**
 * The refs the pre-commit framework runs between (`run --from-ref F --to-ref T`, and the pre-push stage):
 * PRE_COMMIT_FROM_REF / PRE_COMMIT_TO_REF, or pre-commit 1's PRE_COMMIT_ORIGIN (from) / PRE_COMMIT_SOURCE
 * (to), which pre-commit 4.7 still sets beside them. undefined: a commit, judged on its staged changes.
 */
export function refRange(env: NodeJS.ProcessEnv): { from: string; to: string } | undefined {
  const from = env.PRE_COMMIT_FROM_REF || env.PRE_COMMIT_ORIGIN;
  const to = env.PRE_COMMIT_TO_REF || env.PRE_COMMIT_SOURCE;
  return from && to ? { from, to } : undefined;
}

/**
 * `--files` (the pre-commit framework's entry): the staged change of each file given, judged as the git hook
 * judges it (HEAD → index; a file not in HEAD is added whole). The framework passes files, not a change: with
 * `--all-files` every tracked file, most of them unchanged, so judging their content refused a human's commit
 * over lines upstream wrote years ago. A file given with no staged change adds nothing and is not judged.
 * Between two refs (refRange), the change between them is judged instead of the index.
 */
async function runOnFiles(files: readonly string[], env: NodeJS.ProcessEnv, io: HookIo): Promise<number> {
  try {
    const root = git(io.cwd, ["rev-parse", "--show-toplevel"], env).trim();
    const given = new Set(
      files.map((f) => path.relative(root, path.resolve(io.cwd, f)).split(path.sep).join("/")),
    );
    const range = refRange(env);
    const changes = (range ? refChanges(root, env, range.from, range.to) : stagedChanges(root, env)).filter(
      (c) => given.has(c.path),
    );
    const bundle = await bundleFor(root, allowsLoosening(env));
    const { refused, lines } = await judgeStaged(bundle, root, changes, env, range === undefined);
    const what = range ? `change(s) between ${range.from} and ${range.to}` : "staged change(s)";
    io.stderr(
      (lines.length ? lines.join("\n") + "\n" : "") +
        `mcp-code-quality policy (${bundle.hash}): ${refused ? "refused" : `${changes.length} ${what} of ${given.size} file(s) passed`}\n`,
    );
    return refused ? 1 : 0;
  } catch (err) {
    io.stderr(
      `mcp-code-quality policy check failed, so the commit is refused: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
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
