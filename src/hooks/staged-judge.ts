/**
 * The policies' judgment of a commit: each staged change as an edit from its HEAD version to its staged
 * version (protected paths, suppressions, weakened configs, secrets), with each policy's `on_commit` (a
 * human's commit is judged on content; paths are asked, or skipped). Both pre-commit modes use it: the git
 * hook on every staged change, `--files` (the pre-commit framework) on the staged changes of the files given.
 *
 * A rename is judged at its new name as the edit from the old content (a moved file adds nothing), and at
 * its old name by path alone. During a merge, a file whose staged version is one parent's was committed
 * there and is not judged again; another is refused only for what it adds against every parent (what the
 * resolution itself wrote).
 */
import path from "node:path";
import type { Bundle, Violation } from "../policy/bundle.js";
import { checkEdit } from "../policy/checks.js";
import {
  MAX_BLOB_BYTES,
  mergeParents,
  readBlobs,
  stagedChanges,
  textOf,
  ZERO,
  type StagedChange,
} from "./staged-changes.js";

/**
 * A human's confirmation that the commit may hold protected paths (hooks, CI, agent settings) or a changed
 * lint configuration: the rules about what an agent may edit are the agent hook's; this hook asks the human.
 */
export const ALLOW_PROTECTED = "MCQ_ALLOW_PROTECTED";

export interface Judgment {
  refused: boolean;
  lines: string[];
}

/** What the pre-commit hook does with a policy's violation (its `on_commit`: judge by default). */
function onCommitOf(bundle: Bundle, policyId: string): "judge" | "confirm" | "skip" {
  return bundle.data.policies.find((p) => p.id === policyId)?.on_commit ?? "judge";
}

type Verdict = Violation[] | "too-large";

/** The violations of one change (from its base to the index), or too large to read. */
async function judgeChange(
  bundle: Bundle,
  root: string,
  change: StagedChange,
  blobs: Map<string, Buffer | undefined>,
): Promise<Verdict> {
  const blob = (sha: string) => (ZERO.test(sha) ? undefined : blobs.get(sha));
  const before = blob(change.oldSha);
  const after = blob(change.newSha);
  if (
    (!ZERO.test(change.oldSha) && before === undefined) ||
    (!ZERO.test(change.newSha) && after === undefined)
  )
    return "too-large";
  const beforeText = ZERO.test(change.oldSha) ? undefined : (textOf(before) ?? "");
  const header = (textOf(before) ?? textOf(after) ?? "").slice(0, 8192);
  const options = (p: string) => ({ absolute: path.join(root, p), roots: [root], resolve: false });
  const outcome = await checkEdit(
    bundle,
    {
      path: change.path,
      // A symlink's content is its target; binary content has no text to judge (its path still is).
      before: beforeText,
      after: textOf(after) ?? "",
      header,
      writeKind: change.status === "D" ? "delete" : "edit",
    },
    options(change.path),
  );
  if (change.status !== "R" || !change.oldPath) return outcome.violations;
  // The old name of a rename goes, its content stays: judged by its path (moving CI configuration away).
  const gone = await checkEdit(
    bundle,
    { path: change.oldPath, before: beforeText, after: beforeText ?? "", header, writeKind: "delete" },
    options(change.oldPath),
  );
  return [...outcome.violations, ...gone.violations];
}

/** The changes each merge parent → index, by path; none outside a merge. */
function parentChanges(root: string, env: NodeJS.ProcessEnv): Map<string, StagedChange>[] {
  return mergeParents(root, env).map((p) => new Map(stagedChanges(root, env, p).map((c) => [c.path, c])));
}

/** Judges `changes` (HEAD → index, or between two refs): what refuses the commit, and the lines to report. */
export async function judgeStaged(
  bundle: Bundle,
  root: string,
  changes: readonly StagedChange[],
  env: NodeJS.ProcessEnv,
  /** False: `changes` are between two refs, not the index of a commit being made (no merge in progress). */
  staged = true,
): Promise<Judgment> {
  const confirmed = /^(1|true|yes|on)$/i.test(env[ALLOW_PROTECTED] ?? "");
  const parents = staged && changes.length ? parentChanges(root, env) : [];
  // A merged file staged as one parent has it was judged when that parent was committed.
  const judged = changes.filter((c) => parents.every((p) => p.has(c.path)));
  const bases = (c: StagedChange) => [c, ...parents.map((p) => p.get(c.path) as StagedChange)];
  const shas = [...new Set(judged.flatMap((c) => bases(c).flatMap((b) => [b.oldSha, b.newSha])))].filter(
    (s) => !ZERO.test(s),
  );
  const read = await readBlobs(root, shas, env);
  const blobs = new Map(shas.map((s, i) => [s, read[i]]));
  const out: string[] = [];
  let refused = false;
  for (const change of judged) {
    const verdicts = await Promise.all(bases(change).map((b) => judgeChange(bundle, root, b, blobs)));
    if (verdicts.includes("too-large")) {
      refused = true;
      out.push(
        `${change.path}: staged content over ${MAX_BLOB_BYTES} bytes (or unreadable): it is not checked, so the commit is refused`,
      );
      continue;
    }
    const [head, ...others] = verdicts as Violation[][];
    // In a merge, only what the resolution adds against every parent is its own.
    const violations = (head ?? []).filter((v) =>
      others.every((o) => o.some((w) => w.policy_id === v.policy_id)),
    );
    const symlink = change.newMode === "120000" || change.oldMode === "120000";
    const kind =
      change.status === "T"
        ? ` (type change${symlink ? " to or from a symbolic link" : ""})`
        : change.status === "D"
          ? " (deleted)"
          : change.status === "R" && change.oldPath
            ? ` (renamed from ${change.oldPath})`
            : "";
    for (const v of violations) {
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
  return { refused, lines: out };
}
