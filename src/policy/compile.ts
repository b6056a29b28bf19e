/**
 * Compiles the policy bundle: the shipped YAML and skills under policy/, plus a project's
 * `.mcp-code-quality/policy.yaml`, validated (zod), cross-checked, with every CEL condition parsed and
 * type-checked and every example evaluated. Any problem throws BundleError naming file, line and reason.
 * Loosening a shipped policy from the project file is refused unless the operator allowed it.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Bundle, type BundleData, type Evidence, type Policy } from "./bundle.js";
import { BundleError, lineInValue, type BundleProblem } from "./bundle-error.js";
import { anyOf, CelCompileError, compileCondition, type CompiledCondition } from "./cel.js";
import { loadShippedSnapshot, saveShippedSnapshot, type ShippedSources } from "./shipped-snapshot.js";
import type { EditExample } from "./schema.js";
import { packagePath } from "../package-root.js";

/** The shipped bundle's source directory (policy/ at the package root). */
export const DEFAULT_POLICY_DIR = packagePath("policy");
export const PROJECT_POLICY_FILE = path.join(".mcp-code-quality", "policy.yaml");

export interface CompileOptions {
  /** Directory of the shipped source (default: policy/ of this package). */
  sourceDir?: string;
  /** A project's policy file (absolute path), applied over the shipped bundle. */
  projectFile?: string;
  /** Its text, when the caller has read it already (so the bundle is exactly the text that was hashed). */
  projectText?: string;
  /** The operator's flag: a project may loosen shipped policies. */
  allowLoosening?: boolean;
  /** Evaluate every policy's examples (`policy compile` does; start-up and hooks skip it for speed). */
  verifyExamples?: boolean;
  /**
   * Compile each condition when a check first needs it (hooks: only the policies of one kind run). Only
   * without a project file: the shipped conditions were compiled by the build, a project's must be now.
   */
  lazy?: boolean;
}

/** The bundle's data, and where each policy's condition text starts (for CEL error lines). */
type Sources = ShippedSources;

/** The YAML side of the compiler (yaml and zod), loaded only when a source must be parsed. */
const policySources = () => import("./policy-sources.js");

/** The shipped sources: from the build's JSON snapshot when it matches the files, else parsed. */
async function readShipped(dir: string, problems: BundleProblem[]): Promise<Sources> {
  return (
    (dir === DEFAULT_POLICY_DIR && loadShippedSnapshot(dir)) ||
    (await policySources()).parseShippedSources(dir, problems)
  );
}

/** Saves the shipped sources as parsed (`npm run build`); throws when they have problems. */
export async function writeShippedSnapshot(dir = DEFAULT_POLICY_DIR, file?: string): Promise<void> {
  const problems: BundleProblem[] = [];
  const sources = (await policySources()).parseShippedSources(dir, problems);
  if (problems.length > 0) throw new BundleError(problems);
  saveShippedSnapshot(dir, sources, file);
}

/** The shipped sources parsed from their YAML and Markdown. */
export async function parseShippedSources(dir: string, problems: BundleProblem[]): Promise<Sources> {
  return (await policySources()).parseShippedSources(dir, problems);
}

function crossCheck(data: BundleData, problems: BundleProblem[]): void {
  const principles = new Set(data.principles.map((p) => p.id));
  const skills = new Set(data.skills.map((s) => s.id));
  const seen = new Set<string>();
  for (const p of data.policies) {
    if (seen.has(p.id)) problems.push({ ...p.source, reason: `policy ${p.id} is defined twice` });
    seen.add(p.id);
    if (!principles.has(p.principle))
      problems.push({ ...p.source, reason: `policy ${p.id}: unknown principle ${p.principle}` });
    if (p.skill && !skills.has(p.skill))
      problems.push({ ...p.source, reason: `policy ${p.id}: unknown skill ${p.skill}` });
  }
  const byId = new Map(data.policies.map((p) => [p.id, p]));
  for (const e of data.evidence) {
    const p = byId.get(e.policy);
    if (!p)
      problems.push({
        file: "evidence",
        line: 1,
        reason: `evidence for ${e.tool} names unknown policy ${e.policy}`,
      });
    else if (p.applies_to !== "diagnostic")
      problems.push({
        file: "evidence",
        line: 1,
        reason: `evidence for ${e.tool} names ${e.policy}, which is not a diagnostic policy`,
      });
  }
  const skillIds = new Set<string>();
  for (const s of data.skills) {
    if (skillIds.has(s.id)) problems.push({ ...s.source, reason: `skill ${s.id} is defined twice` });
    skillIds.add(s.id);
  }
}

/** Where the k-th `also_when` of a policy is kept in the condition lines. */
export const alsoWhenKey = (id: string, k: number) => `${id}@also_when/${k}`;

/** A policy's condition and each `also_when`, every one parsed and checked on its own, ORed as compiled functions. */
export function compilePolicy(p: Policy, trusted = false): CompiledCondition {
  const parts = [
    compileCondition(p.applies_to, p.condition, trusted),
    ...(p.also_when ?? []).map((e) => compileCondition(p.applies_to, e, trusted)),
  ];
  return parts.length === 1 ? (parts[0] as CompiledCondition) : anyOf(parts);
}

function compileConditions(sources: Sources, problems: BundleProblem[]): Map<string, CompiledCondition> {
  const out = new Map<string, CompiledCondition>();
  for (const p of sources.data.policies) {
    const texts: [string, string, string][] = [
      [p.condition, p.id, "condition"],
      ...(p.also_when ?? []).map(
        (e, k) => [e, alsoWhenKey(p.id, k), "also_when"] as [string, string, string],
      ),
    ];
    const parts: CompiledCondition[] = [];
    for (const [text, key, label] of texts) {
      try {
        parts.push(compileCondition(p.applies_to, text));
      } catch (err) {
        const where = sources.conditionLines.get(key) ?? { file: p.source.file, at: { line: p.source.line } };
        const line =
          err instanceof CelCompileError
            ? lineInValue(where.at, err.lineInExpression, err.column)
            : where.at.line;
        problems.push({
          file: where.file,
          line,
          reason: `policy ${p.id}: ${label}: ${(err as Error).message}`,
        });
      }
    }
    if (parts.length === texts.length)
      out.set(p.id, parts.length === 1 ? (parts[0] as CompiledCondition) : anyOf(parts));
  }
  return out;
}

const EXAMPLE_SITE = {
  cwd: "/work/project",
  projectRoot: "/work/project",
  home: "/home/user",
  gitConfig: () => null,
};

async function checkExamples(bundle: Bundle, problems: BundleProblem[]): Promise<void> {
  const { checkCommand, checkEdit } = await import("./checks.js");
  for (const p of bundle.data.policies) {
    const cases: [string | EditExample, boolean][] = [
      ...p.examples.match.map((e) => [e, true] as [string | EditExample, boolean]),
      ...p.examples.no_match.map((e) => [e, false] as [string | EditExample, boolean]),
    ];
    for (const [example, expected] of cases) {
      let outcome;
      if (p.applies_to === "command" && typeof example === "string")
        outcome = await checkCommand(bundle, { command: example }, EXAMPLE_SITE);
      else if (p.applies_to === "edit" && typeof example === "object")
        outcome = await checkEdit(bundle, example, { resolve: false });
      else {
        problems.push({
          ...p.source,
          reason: `policy ${p.id}: an ${p.applies_to} example must be ${p.applies_to === "command" ? "a command string" : "an edit {path, before?, after?}"}`,
        });
        continue;
      }
      const matched = outcome.violations.some((v) => v.policy_id === p.id);
      if (matched !== expected)
        problems.push({
          ...p.source,
          reason: `policy ${p.id}: example ${JSON.stringify(example)} ${expected ? "does not match" : "matches"} (listed under ${expected ? "match" : "no_match"})`,
        });
    }
  }
}

/** Content hash of what the bundle says (not where it was read from). */
export function bundleHash(data: BundleData): string {
  const strip = <T extends { source?: unknown; overridden_by?: unknown }>(x: T) => ({
    ...x,
    source: undefined,
    overridden_by: undefined,
  });
  const canonical = JSON.stringify({
    principles: data.principles,
    policies: data.policies.map(strip),
    evidence: data.evidence,
    skills: data.skills.map(strip),
  });
  return `sha256:${crypto.createHash("sha256").update(canonical).digest("hex").slice(0, 16)}`;
}

/** Compiles the bundle; throws BundleError with every problem found. */
export async function compileBundle(options: CompileOptions = {}): Promise<Bundle> {
  const problems: BundleProblem[] = [];
  const sources = await readShipped(options.sourceDir ?? DEFAULT_POLICY_DIR, problems);
  const project =
    options.projectFile !== undefined &&
    (options.projectText !== undefined || fs.existsSync(options.projectFile));
  if (project)
    (await policySources()).applyProject(
      sources,
      options.projectFile as string,
      options.allowLoosening === true,
      problems,
      options.projectText,
    );
  if (problems.length === 0) crossCheck(sources.data, problems);
  const lazy = options.lazy === true && !project && !options.verifyExamples;
  const conditions = problems.length === 0 && !lazy ? compileConditions(sources, problems) : new Map();
  if (problems.length > 0) throw new BundleError(problems);
  // Lazily compiled conditions are the shipped ones, checked by the build: their patterns compile on first use.
  const bundle = new Bundle(
    bundleHash(sources.data),
    sources.data,
    conditions,
    lazy ? (p: Policy) => compilePolicy(p, true) : undefined,
  );
  if (options.verifyExamples) await checkExamples(bundle, problems);
  if (problems.length > 0) throw new BundleError(problems);
  return bundle;
}

/** The compiled bundle as written by `policy compile`: what it says, with its hash. */
export function serializeBundle(bundle: Bundle): string {
  return JSON.stringify({ bundle_hash: bundle.hash, ...bundle.data }, null, 2) + "\n";
}

export type { Evidence };
