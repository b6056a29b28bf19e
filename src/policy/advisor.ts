/**
 * What the policy layer says about a diagnostic: the one contract between the policy bundle (which fills it)
 * and the tools that attach advice to findings (SARIF remediation, lint_check, lint_advice, remediation_advice).
 * Until a bundle is loaded the advisor is empty: every answer is well-formed and says `mapped: false`.
 */
import type { BundleSpec } from "./bundle-spec.js";

/** A diagnostic as a tool reported it. */
export interface DiagnosticRef {
  /** The reporting tool (ruff, eslint, mypy, tsc, bandit, rubocop, clippy, ...). */
  tool: string;
  /** The tool's rule id (F401, no-unused-vars, B602, Style/StringLiterals, TS2322, clippy::needless_return). */
  rule: string;
  message?: string;
  /** Display path of the file, when known. */
  path?: string;
  /** A policy the diagnostic already names (a policy layer's SARIF: seed 002's `properties.policy_id`). */
  policy_id?: string;
}

/** A policy that applies, with what it tells the agent. */
export interface PolicyRef {
  policy_id: string;
  principle_id: string;
  severity: "block" | "warn" | "advice";
  message: string;
  advice: string;
  skill_id?: string;
}

/** A skill playbook an agent can follow. */
export interface SkillRef {
  skill_id: string;
  title: string;
  summary: string;
  /** The playbook's steps, in order. */
  steps: string[];
}

/** Why a policy exists, as the bundle's principles say it. */
export interface PrincipleRef {
  principle_id: string;
  title: string;
  summary: string;
}

export interface DiagnosticAdvice {
  /** Content hash of the compiled bundle that answered ("none" when no bundle is loaded). */
  bundle_hash: string;
  /** Whether the bundle's evidence map knows this diagnostic. */
  mapped: boolean;
  policies: PolicyRef[];
  skills: SkillRef[];
  /** The principles of those policies (a bundle fills them; other advisors may leave them out). */
  principles?: PrincipleRef[];
}

export interface PolicyAdvisor {
  readonly bundleHash: string;
  adviseDiagnostic(diagnostic: DiagnosticRef): DiagnosticAdvice;
  /** Where its bundle comes from, so a worker thread can compile the same one; none for an empty advisor. */
  readonly spec?: BundleSpec;
}

/** The advisor of a server with no bundle: nothing is mapped. */
export const EMPTY_ADVISOR: PolicyAdvisor = {
  bundleHash: "none",
  adviseDiagnostic: () => ({ bundle_hash: "none", mapped: false, policies: [], skills: [] }),
};

/** Services key under which a server keeps its advisor (see Services.get). */
export const POLICY_ADVISOR_SERVICE = "policy-advisor";
