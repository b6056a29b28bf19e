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
  message: string;
  advice: string;
  skill?: string;
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
  /** Policies whose condition failed to evaluate (a bundle bug; reported, not matched). */
  evaluation_errors: { policy_id: string; error: string }[];
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

  /** Evaluates every policy of one kind against each context (a command line has one per sub-command). */
  check(kind: AppliesTo, contexts: readonly { context: CelContext; label: string }[]): CheckOutcome {
    const violations: Violation[] = [];
    const errors: CheckOutcome["evaluation_errors"] = [];
    for (const policy of this.data.policies) {
      if (policy.applies_to !== kind) continue;
      const condition = this.conditions.get(policy.id);
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
          violations.push({ ...this.ref(policy), matched: label });
          break;
        }
      }
    }
    violations.sort((a, b) => RANK[b.severity] - RANK[a.severity]);
    return { status: statusOf(violations), violations, evaluation_errors: errors };
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
      const condition = this.conditions.get(policy.id);
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
    return {
      bundle_hash: this.hash,
      mapped: policies.length > 0,
      policies: policies.map((p) => this.ref(p)),
      skills,
    };
  }
}
