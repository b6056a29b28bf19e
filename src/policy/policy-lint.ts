/**
 * The compiled policy lint (seed 002: what `lint_check` runs "when no managed tool is supplied"): the edit
 * policies that apply to file content, run over files as findings. A changed file is judged as the edit it
 * is (its HEAD version → its current or staged version: every edit policy, generated and protected files
 * included); an unchanged file is judged by what its content says (a violation that its path alone would
 * raise, such as being a lock file, is not a finding). Each finding points at the lines that raise it.
 */
import type { Bundle } from "./bundle.js";
import { checkEdit } from "./checks.js";
import { editContext, linesBetween, type EditInput } from "./edit-context.js";
import { findSecrets } from "./secrets.js";

export interface PolicyLintFile {
  absolute: string;
  /** As the policies name it (relative to the project). */
  path: string;
  /** The version it is judged against (HEAD's), or undefined: judged by its content alone. */
  before?: string;
  after: string;
}

export interface PolicyFinding {
  file: string;
  policy_id: string;
  severity: "error" | "warning" | "info";
  message: string;
  advice: string;
  line: number;
}

const SEVERITY = { block: "error", warn: "warning", advice: "info" } as const;
/** Lines of a file looked at one by one to place a finding; beyond, it is placed at line 1. */
const MAX_LOCATED_LINES = 20_000;

/** The 1-based lines of `after` that raise `policyId` on their own (the lines it adds, one at a time). */
function lineOf(bundle: Bundle, edit: EditInput, policyId: string): number {
  const lines = (edit.after ?? "").split(/\r?\n/);
  if (lines.length > MAX_LOCATED_LINES) return 1;
  for (let i = 0; i < lines.length; i++) {
    const one = linesBetween("", lines[i] as string);
    if (one.added.length === 0) continue;
    const outcome = bundle.check("edit", [
      { context: editContext({ ...edit, before: "", after: lines[i] as string }, one, []), label: edit.path },
    ]);
    if (outcome.violations.some((v) => v.policy_id === policyId)) return i + 1;
  }
  return 1;
}

/** Policy findings for each file. */
export async function policyLint(
  bundle: Bundle,
  files: readonly PolicyLintFile[],
  roots: readonly string[],
): Promise<PolicyFinding[]> {
  const out: PolicyFinding[] = [];
  for (const f of files) {
    const edit: EditInput = {
      path: f.path,
      ...(f.before !== undefined ? { before: f.before } : { before: "" }),
      after: f.after,
    };
    const outcome = await checkEdit(bundle, edit, { absolute: f.absolute, roots });
    let violations = outcome.violations;
    if (f.before === undefined) {
      // Judged by content: what the same path with no content raises is not the content's doing.
      const empty = await checkEdit(
        bundle,
        { path: f.path, before: "", after: "" },
        { absolute: f.absolute, roots },
      );
      const byPath = new Set(empty.violations.map((v) => v.policy_id));
      violations = violations.filter((v) => !byPath.has(v.policy_id));
    }
    const secrets = violations.some((v) => v.policy_id === "secrets.in_edit")
      ? await findSecrets(f.after, f.path)
      : [];
    for (const v of violations) {
      const lines =
        v.policy_id === "secrets.in_edit" && secrets.length
          ? [...new Set(secrets.map((s) => s.line))]
          : [lineOf(bundle, edit, v.policy_id)];
      for (const line of lines)
        out.push({
          file: f.absolute,
          policy_id: v.policy_id,
          severity: SEVERITY[v.severity],
          message: v.message,
          advice: v.advice,
          line,
        });
    }
  }
  return out;
}
