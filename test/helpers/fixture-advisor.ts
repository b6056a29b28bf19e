/**
 * A small real PolicyAdvisor (src/policy/advisor.ts) built from a JSON fixture: policies, an evidence map
 * from `tool:rule` to policy ids, and skills. Tests register it in an in-process server's services, the way
 * the policy bundle registers its own.
 */
import fs from "node:fs";
import type {
  DiagnosticAdvice,
  DiagnosticRef,
  PolicyAdvisor,
  PolicyRef,
  PrincipleRef,
  SkillRef,
} from "../../src/policy/advisor.js";

interface AdvisorFixture {
  bundle_hash: string;
  policies: PolicyRef[];
  evidence: Record<string, string[]>;
  skills: SkillRef[];
  principles?: PrincipleRef[];
}

export class FixtureAdvisor implements PolicyAdvisor {
  readonly bundleHash: string;
  private readonly fixture: AdvisorFixture;

  constructor(file: string) {
    this.fixture = JSON.parse(fs.readFileSync(file, "utf8")) as AdvisorFixture;
    this.bundleHash = this.fixture.bundle_hash;
  }

  adviseDiagnostic(d: DiagnosticRef): DiagnosticAdvice {
    const ids = this.fixture.evidence[`${d.tool}:${d.rule}`] ?? [];
    const policies = this.fixture.policies.filter((p) => ids.includes(p.policy_id));
    const skills = this.fixture.skills.filter((s) => policies.some((p) => p.skill_id === s.skill_id));
    const principles = (this.fixture.principles ?? []).filter((pr) =>
      policies.some((p) => p.principle_id === pr.principle_id),
    );
    return { bundle_hash: this.bundleHash, mapped: policies.length > 0, policies, skills, principles };
  }
}
