/**
 * A compiled policy bundle: principles, policies with their compiled CEL conditions, the evidence map
 * and the skills, named by a content hash. It answers command, edit and diagnostic checks.
 */
import type { DiagnosticAdvice, DiagnosticRef, PolicyRef, SkillRef } from "./advisor.js";
import type { CelContext, CompiledCondition } from "./cel.js";
import type { AppliesTo, EditExample, Severity } from "./schema.js";

export interface Principle {
  id: string;
  title: string;
  summary: string;
}

export interface SourceRef {
  file: string;
  line: number;
}

export interface Policy {
  id: string;
  principle: string;
  severity: Severity;
  applies_to: AppliesTo;
  condition: string;
  /** A project's `also_when` conditions, each parsed on its own and ORed with `condition`. */
  also_when?: string[];
  message: string;
  advice: string;
  skill?: string;
  /** What the git pre-commit hook does with it (schema.ts). */
  on_commit?: "judge" | "confirm" | "skip";
  /** A warn the agent hook asks the human about (schema.ts); other warns are advice to the agent. */
  confirm?: boolean;
  examples: { match: (string | EditExample)[]; no_match: (string | EditExample)[] };
  /** Where it was defined (and overridden, for a project's changes). */
  source: SourceRef;
  overridden_by?: SourceRef;
}

export interface Skill {
  id: string;
  title: string;
  summary: string;
  tags: string[];
  triggers: string[];
  policies: string[];
  steps: string[];
  body: string;
  source: SourceRef;
}

export interface Evidence {
  tool: string;
  rules: string[];
  policy: string;
}

export interface BundleData {
  principles: Principle[];
  policies: Policy[];
  evidence: Evidence[];
  skills: Skill[];
}

export interface Violation {
  policy_id: string;
  principle_id: string;
  severity: Severity;
  message: string;
  advice: string;
  skill_id?: string;
  /** The sub-command (or path) that matched. */
  matched?: string;
}

export type CheckStatus = "allowed" | "warn" | "blocked";

export interface CheckOutcome {
  status: CheckStatus;
  violations: Violation[];
  /** Policies whose condition could not be evaluated (over budget, an error): the check is then undecided. */
  evaluation_errors: { policy_id: string; error: string }[];
}

/** The policy that says "this could not be decided" for each kind of check (a warn: the human is asked). */
export const UNDECIDABLE_POLICY: Partial<Record<AppliesTo, string>> = {
  command: "command.undecidable",
  edit: "edit.undecidable",
};

/**
 * What an undecided violation matched, with why it could not be read (the walk's reason: `python3 runs
 * /tmp/x.py is outside the allowed paths, so it is not read`), so that the human asked and the agent see it.
 */
function withWhy(label: string, policyId: string, kind: AppliesTo, context: CelContext): string {
  const why = context.undecided;
  if (policyId !== UNDECIDABLE_POLICY[kind] || typeof why !== "string" || why === "") return label;
  return `${label} (undecided: ${why})`;
}

export interface CheckOptions {
  /** A time (ms since the epoch) past which the check stops and is undecided. */
  deadline?: number;
}

const RANK: Record<Severity, number> = { block: 3, warn: 2, advice: 1 };

export function severityRank(s: Severity): number {
  return RANK[s];
}

export function statusOf(violations: readonly Violation[]): CheckStatus {
  if (violations.some((v) => v.severity === "block")) return "blocked";
  if (violations.some((v) => v.severity === "warn")) return "warn";
  return "allowed";
}

/** Tool names as the evidence map spells them. */
function normalizeTool(tool: string): string {
  const t = tool.toLowerCase();
  if (t === "typescript" || t === "tsserver") return "tsc";
  if (t === "cargo-clippy" || t === "rustc") return "clippy";
  if (t === "golangci-lint" || t === "staticcheck") return "golint";
  return t;
}

function normalizeRule(tool: string, rule: string): string {
  if (tool === "tsc" && /^\d+$/.test(rule)) return `TS${rule}`;
  return rule;
}

export class Bundle {
  private readonly policiesById: Map<string, Policy>;
  private readonly skillsById: Map<string, Skill>;
  private readonly principlesById: Map<string, Principle>;

  constructor(
    readonly hash: string,
    readonly data: BundleData,
    private readonly conditions: Map<string, CompiledCondition>,
    /** Compiles a policy's condition on first use (hooks compile only what a decision needs). */
    private readonly compile?: (policy: Policy) => CompiledCondition,
  ) {
    this.policiesById = new Map(data.policies.map((p) => [p.id, p]));
    this.skillsById = new Map(data.skills.map((s) => [s.id, s]));
    this.principlesById = new Map(data.principles.map((p) => [p.id, p]));
  }

  policy(id: string): Policy | undefined {
    return this.policiesById.get(id);
  }

  skill(id: string): Skill | undefined {
    return this.skillsById.get(id);
  }

  principle(id: string): Principle | undefined {
    return this.principlesById.get(id);
  }

  /** The compiled condition of a policy (compiled on first use when the bundle was built lazily). */
  private conditionOf(policy: Policy): CompiledCondition | undefined {
    let condition = this.conditions.get(policy.id);
    if (!condition && this.compile) {
      condition = this.compile(policy);
      this.conditions.set(policy.id, condition);
    }
    return condition;
  }

  /**
   * Evaluates every policy of one kind against each context (a command line has one per sub-command). A
   * condition that cannot be evaluated (over its budget, an error) or a deadline passed makes the check
   * undecided: the kind's undecidable policy is reported, never "allowed".
   */
  check(
    kind: AppliesTo,
    contexts: readonly { context: CelContext; label: string }[],
    options: CheckOptions = {},
  ): CheckOutcome {
    const violations: Violation[] = [];
    const errors: CheckOutcome["evaluation_errors"] = [];
    for (const policy of this.data.policies) {
      if (policy.applies_to !== kind) continue;
      if (options.deadline !== undefined && Date.now() > options.deadline) {
        errors.push({ policy_id: policy.id, error: "the check ran past its deadline" });
        break;
      }
      let condition: CompiledCondition | undefined;
      try {
        condition = this.conditionOf(policy);
      } catch (err) {
        errors.push({
          policy_id: policy.id,
          error: err instanceof Error ? err.message.split("\n")[0]! : String(err),
        });
        continue;
      }
      if (!condition) continue;
      for (const { context, label } of contexts) {
        let matched: boolean;
        try {
          matched = condition(context);
        } catch (err) {
          errors.push({
            policy_id: policy.id,
            error: err instanceof Error ? err.message.split("\n")[0]! : String(err),
          });
          break;
        }
        if (matched) {
          violations.push({ ...this.ref(policy), matched: withWhy(label, policy.id, kind, context) });
          break;
        }
      }
    }
    if (errors.length)
      violations.push(
        ...this.undecidable(
          kind,
          errors.map((e) => `${e.policy_id}: ${e.error}`),
        ),
      );
    return this.outcome(violations, errors);
  }

  /** The violation that says a check could not be decided, with why (the kind's undecidable policy, or a stand-in). */
  undecidable(kind: AppliesTo, reasons: string[]): Violation[] {
    const id = UNDECIDABLE_POLICY[kind];
    const policy = id ? this.policiesById.get(id) : undefined;
    const matched = reasons.join("; ").slice(0, 2000);
    if (policy) return [{ ...this.ref(policy), matched }];
    return [
      {
        policy_id: id ?? `${kind}.undecidable`,
        principle_id: "irreversible-needs-a-human",
        severity: "warn",
        message: "The policy could not decide this; a human is asked.",
        advice: "Rewrite it so that what it does is plain from the text, or ask the human.",
        matched,
      },
    ];
  }

  /** Violations, deduplicated by policy, most severe first, with their status. */
  outcome(violations: Violation[], errors: CheckOutcome["evaluation_errors"] = []): CheckOutcome {
    const seen = new Set<string>();
    const unique = violations.filter((v) => !seen.has(v.policy_id) && seen.add(v.policy_id));
    unique.sort((a, b) => RANK[b.severity] - RANK[a.severity]);
    return { status: statusOf(unique), violations: unique, evaluation_errors: errors };
  }

  ref(policy: Policy): PolicyRef {
    return {
      policy_id: policy.id,
      principle_id: policy.principle,
      severity: policy.severity,
      message: policy.message,
      advice: policy.advice,
      ...(policy.skill ? { skill_id: policy.skill } : {}),
    };
  }

  skillRef(skill: Skill): SkillRef {
    return { skill_id: skill.id, title: skill.title, summary: skill.summary, steps: skill.steps };
  }

  /** The policies the evidence map links to a diagnostic (whose condition, if any, holds for it). */
  diagnosticPolicies(diagnostic: DiagnosticRef): Policy[] {
    const tool = normalizeTool(diagnostic.tool);
    const rule = normalizeRule(tool, diagnostic.rule);
    const found: Policy[] = [];
    for (const entry of this.data.evidence) {
      if (normalizeTool(entry.tool) !== tool) continue;
      const hit = entry.rules.some((r) => (r.endsWith("*") ? rule.startsWith(r.slice(0, -1)) : r === rule));
      const policy = hit ? this.policiesById.get(entry.policy) : undefined;
      if (!policy || found.includes(policy)) continue;
      let condition: CompiledCondition | undefined;
      try {
        condition = this.conditionOf(policy);
      } catch {
        continue;
      }
      const context = { tool, rule, message: diagnostic.message ?? "", path: diagnostic.path ?? "" };
      try {
        if (condition && !condition(context)) continue;
      } catch {
        continue;
      }
      found.push(policy);
    }
    return found;
  }

  adviseDiagnostic(diagnostic: DiagnosticRef): DiagnosticAdvice {
    const policies = this.diagnosticPolicies(diagnostic);
    // A policy the diagnostic names itself, when this bundle has it.
    const named = diagnostic.policy_id ? this.policiesById.get(diagnostic.policy_id) : undefined;
    if (named && !policies.includes(named)) policies.unshift(named);
    const skills: SkillRef[] = [];
    for (const p of policies) {
      const skill = p.skill ? this.skillsById.get(p.skill) : undefined;
      if (skill && !skills.some((s) => s.skill_id === skill.id)) skills.push(this.skillRef(skill));
    }
    const principles = [...new Set(policies.map((p) => p.principle))].flatMap((id) => {
      const pr = this.principlesById.get(id);
      return pr ? [{ principle_id: pr.id, title: pr.title, summary: pr.summary }] : [];
    });
    return {
      bundle_hash: this.hash,
      mapped: policies.length > 0,
      policies: policies.map((p) => this.ref(p)),
      skills,
      principles,
    };
  }
}
