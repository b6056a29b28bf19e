/**
 * The policy bundle's source format (YAML under policy/ and a project's .mcp-code-quality/policy.yaml),
 * one zod schema per file kind. Unknown keys are refused so a typo never passes silently.
 */
import { z } from "zod";

const id = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]*$/, "ids are lower case: letters, digits, '.', '_', '-'")
  .max(100);
const text = z.string().min(1).max(4000);

export const SEVERITIES = ["block", "warn", "advice"] as const;
export type Severity = (typeof SEVERITIES)[number];
export const APPLIES_TO = ["command", "edit", "diagnostic"] as const;
export type AppliesTo = (typeof APPLIES_TO)[number];

export const principleSchema = z.strictObject({ id, title: text, summary: text });

/** An edit example: the changed file and its text before and after (or only the added lines). */
export const editExampleSchema = z.strictObject({
  path: z.string().min(1),
  before: z.string().optional(),
  after: z.string().optional(),
});
export type EditExample = z.infer<typeof editExampleSchema>;
const example = z.union([z.string().min(1), editExampleSchema]);

export const policySchema = z.strictObject({
  id,
  principle: id,
  severity: z.enum(SEVERITIES),
  applies_to: z.enum(APPLIES_TO),
  /** A CEL expression over the command, edit or diagnostic context (see docs/policy.md). */
  condition: text,
  message: text,
  advice: text,
  skill: id.optional(),
  /**
   * What the git pre-commit hook does with it (edit policies): `judge` (default) refuses a commit it blocks;
   * `confirm` refuses it unless the human confirms with MCQ_ALLOW_PROTECTED=1 (rules about which paths an
   * agent may touch); `skip` leaves it to the agent's hook.
   */
  on_commit: z.enum(["judge", "confirm", "skip"]).optional(),
  /**
   * A warn that needs the human (irreversible, undecided, the guard itself): the Claude Code hook asks
   * (`ask`). Any other warn is advice the agent reads and the call goes on (`additionalContext`).
   */
  confirm: z.boolean().optional(),
  examples: z
    .strictObject({
      match: z.array(example).max(20).default([]),
      no_match: z.array(example).max(20).default([]),
    })
    .optional(),
});
export type PolicySource = z.infer<typeof policySchema>;

export const evidenceSchema = z.strictObject({
  tool: z.string().min(1).max(50),
  /** Rule ids as the tool reports them; a trailing `*` matches a prefix (RuboCop `Style/*`). */
  rules: z.array(z.string().min(1).max(200)).min(1).max(500),
  policy: id,
});
export type EvidenceSource = z.infer<typeof evidenceSchema>;

export const skillFrontMatterSchema = z.strictObject({
  id,
  title: text,
  summary: text,
  tags: z.array(z.string().min(1).max(50)).max(30).default([]),
  triggers: z.array(z.string().min(1).max(200)).max(50).default([]),
  policies: z.array(id).max(50).default([]),
});

export const principlesFileSchema = z.strictObject({ principles: z.array(principleSchema).min(1) });
export const policiesFileSchema = z.strictObject({ policies: z.array(policySchema).min(1) });
export const evidenceFileSchema = z.strictObject({ evidence: z.array(evidenceSchema) });

/** A project's overlay: new principles, policies and evidence, and changes to shipped policies. */
export const overrideSchema = z.strictObject({
  id,
  severity: z.enum(SEVERITIES).optional(),
  /** ORed with the shipped condition: matches more, so it only tightens. */
  also_when: text.optional(),
  /** Replaces the shipped condition: may match less, so it counts as loosening. */
  condition: text.optional(),
  message: text.optional(),
  advice: text.optional(),
  skill: id.optional(),
  disabled: z.boolean().optional(),
});
export type PolicyOverride = z.infer<typeof overrideSchema>;

export const projectPolicyFileSchema = z.strictObject({
  principles: z.array(principleSchema).optional(),
  policies: z.array(policySchema).optional(),
  overrides: z.array(overrideSchema).optional(),
  evidence: z.array(evidenceSchema).optional(),
});
export type ProjectPolicyFile = z.infer<typeof projectPolicyFileSchema>;
