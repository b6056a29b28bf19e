/**
 * Compiles the policy bundle: the shipped YAML and skills under policy/, plus a project's
 * `.mcp-code-quality/policy.yaml`, validated (zod), cross-checked, with every CEL condition parsed and
 * type-checked and every example evaluated. Any problem throws BundleError naming file, line and reason.
 * Loosening a shipped policy from the project file is refused unless the operator allowed it.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  Bundle,
  severityRank,
  type BundleData,
  type Evidence,
  type Policy,
  type Principle,
  type Skill,
} from "./bundle.js";
import { CelCompileError, compileCondition, type CompiledCondition } from "./cel.js";
import { loadShippedSnapshot, saveShippedSnapshot, type ShippedSources } from "./shipped-snapshot.js";
import { checkCommand, checkEdit } from "./checks.js";
import {
  evidenceFileSchema,
  policiesFileSchema,
  principlesFileSchema,
  projectPolicyFileSchema,
  skillFrontMatterSchema,
  type EditExample,
  type PolicySource,
} from "./schema.js";
import {
  BundleError,
  lineInValue,
  lineOf,
  readYaml,
  splitFrontMatter,
  stepsOf,
  validate,
  valueStartLine,
  type BundleProblem,
  type ValueLines,
  type YamlSource,
} from "./source.js";

/** The shipped bundle's source directory (policy/ at the package root). */
export const DEFAULT_POLICY_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../policy");
export const PROJECT_POLICY_FILE = path.join(".mcp-code-quality", "policy.yaml");
const MAX_SOURCE_BYTES = 1024 * 1024;

export interface CompileOptions {
  /** Directory of the shipped source (default: policy/ of this package). */
  sourceDir?: string;
  /** A project's policy file (absolute path), applied over the shipped bundle. */
  projectFile?: string;
  /** The operator's flag: a project may loosen shipped policies. */
  allowLoosening?: boolean;
  /** Evaluate every policy's examples (`policy compile` does; start-up and hooks skip it for speed). */
  verifyExamples?: boolean;
}

function readText(file: string, problems: BundleProblem[]): string | undefined {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new Error("not a regular file");
      if (st.size > MAX_SOURCE_BYTES) throw new Error(`larger than ${MAX_SOURCE_BYTES} bytes`);
      return fs.readFileSync(fd, "utf8");
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    problems.push({
      file,
      line: 1,
      reason: code === "ELOOP" ? "is a symbolic link" : `cannot read: ${code ?? (err as Error).message}`,
    });
    return undefined;
  }
}

function yamlFile<T>(file: string, schema: import("zod").ZodType<T>, problems: BundleProblem[]) {
  const text = readText(file, problems);
  if (text === undefined) return undefined;
  const source = readYaml(file, text, problems);
  if (!source) return undefined;
  const value = validate(source, schema, problems);
  return value === undefined ? undefined : { value, source };
}

function toPolicy(p: PolicySource, source: YamlSource, at: (string | number)[]): Policy {
  return {
    ...p,
    examples: { match: p.examples?.match ?? [], no_match: p.examples?.no_match ?? [] },
    source: { file: source.file, line: lineOf(source, at) },
  };
}

function readSkills(dir: string, problems: BundleProblem[]): Skill[] {
  let names: string[];
  try {
    names = fs
      .readdirSync(dir)
      .filter((n) => n.endsWith(".md"))
      .sort();
  } catch {
    return [];
  }
  const skills: Skill[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const text = readText(file, problems);
    if (text === undefined) continue;
    const split = splitFrontMatter(text);
    if (!split) {
      problems.push({ file, line: 1, reason: "a skill starts with YAML front matter between --- lines" });
      continue;
    }
    const source = readYaml(file, split.frontMatter, problems, 1);
    const front = source && validate(source, skillFrontMatterSchema, problems);
    if (!front) continue;
    const steps = stepsOf(split.body);
    if (steps.length === 0)
      problems.push({ file, line: split.bodyLine, reason: "no numbered steps under a '## Steps' heading" });
    skills.push({ ...front, steps, body: split.body.trim(), source: { file, line: 1 } });
  }
  return skills;
}

/** The bundle's data, and where each policy's condition text starts (for CEL error lines). */
type Sources = ShippedSources;

/** The shipped sources: from the build's JSON snapshot when it matches the files, else parsed. */
function readShipped(dir: string, problems: BundleProblem[]): Sources {
  return (dir === DEFAULT_POLICY_DIR && loadShippedSnapshot(dir)) || parseShippedSources(dir, problems);
}

/** Saves the shipped sources as parsed (`npm run build`); throws when they have problems. */
export function writeShippedSnapshot(dir = DEFAULT_POLICY_DIR, file?: string): void {
  const problems: BundleProblem[] = [];
  const sources = parseShippedSources(dir, problems);
  if (problems.length > 0) throw new BundleError(problems);
  saveShippedSnapshot(dir, sources, file);
}

/** The shipped sources parsed from their YAML and Markdown. */
export function parseShippedSources(dir: string, problems: BundleProblem[]): Sources {
  const data: BundleData = { principles: [], policies: [], evidence: [], skills: [] };
  const conditionLines = new Map<string, { file: string; at: ValueLines }>();
  const principles = yamlFile(path.join(dir, "principles.yaml"), principlesFileSchema, problems);
  if (principles) data.principles.push(...principles.value.principles);
  const policies = yamlFile(path.join(dir, "policies.yaml"), policiesFileSchema, problems);
  if (policies)
    policies.value.policies.forEach((p, i) => {
      data.policies.push(toPolicy(p, policies.source, ["policies", i]));
      conditionLines.set(p.id, {
        file: policies.source.file,
        at: valueStartLine(policies.source, ["policies", i, "condition"]),
      });
    });
  const evidence = yamlFile(path.join(dir, "evidence.yaml"), evidenceFileSchema, problems);
  if (evidence) data.evidence.push(...evidence.value.evidence);
  data.skills.push(...readSkills(path.join(dir, "skills"), problems));
  return { data, conditionLines };
}

/** Applies a project's policy file over the shipped bundle: additions, tightenings, and (with the flag) loosenings. */
function applyProject(
  sources: Sources,
  file: string,
  allowLoosening: boolean,
  problems: BundleProblem[],
): void {
  const text = readText(file, problems);
  if (text === undefined || text.trim() === "") return;
  const source = readYaml(file, text, problems);
  const overlay = source && validate(source, projectPolicyFileSchema, problems);
  if (!source || !overlay) return;
  const { data, conditionLines } = sources;
  const shippedIds = new Set(data.policies.map((p) => p.id));
  for (const principle of overlay.principles ?? []) {
    if (data.principles.some((p) => p.id === principle.id))
      problems.push({
        file,
        line: lineOf(source, ["principles"]),
        reason: `principle ${principle.id} already exists in the shipped bundle`,
      });
    else data.principles.push(principle as Principle);
  }
  (overlay.policies ?? []).forEach((p, i) => {
    if (shippedIds.has(p.id)) {
      problems.push({
        file,
        line: lineOf(source, ["policies", i, "id"]),
        reason: `policy ${p.id} is a shipped policy: change it under overrides (tightening), not by redefining it`,
      });
      return;
    }
    data.policies.push(toPolicy(p, source, ["policies", i]));
    conditionLines.set(p.id, { file, at: valueStartLine(source, ["policies", i, "condition"]) });
  });
  (overlay.overrides ?? []).forEach((o, i) => {
    const at = ["overrides", i];
    const index = data.policies.findIndex((p) => p.id === o.id);
    const shipped = data.policies[index];
    if (!shipped || !shippedIds.has(o.id)) {
      problems.push({
        file,
        line: lineOf(source, [...at, "id"]),
        reason: `override of unknown policy ${o.id}`,
      });
      return;
    }
    const loosening: string[] = [];
    if (o.disabled) loosening.push("disables it");
    if (o.severity && severityRank(o.severity) < severityRank(shipped.severity))
      loosening.push(`lowers its severity from ${shipped.severity} to ${o.severity}`);
    if (o.condition) loosening.push("replaces its condition (it may match less)");
    if (loosening.length > 0 && !allowLoosening) {
      problems.push({
        file,
        line: lineOf(source, at),
        reason:
          `override of shipped policy ${o.id} ${loosening.join(" and ")}: loosening a shipped policy is refused ` +
          "unless the operator starts the server (or hook) with --policy-allow-loosening",
      });
      return;
    }
    if (o.disabled) {
      data.policies.splice(index, 1);
      return;
    }
    let condition = o.condition ?? shipped.condition;
    if (o.condition) conditionLines.set(o.id, { file, at: valueStartLine(source, [...at, "condition"]) });
    if (o.also_when) {
      condition = `(${condition}) || (${o.also_when})`;
      if (!o.condition) conditionLines.set(o.id, { file, at: valueStartLine(source, [...at, "also_when"]) });
    }
    data.policies[index] = {
      ...shipped,
      severity: o.severity ?? shipped.severity,
      condition,
      message: o.message ?? shipped.message,
      advice: o.advice ?? shipped.advice,
      skill: o.skill ?? shipped.skill,
      overridden_by: { file, line: lineOf(source, at) },
    };
  });
  data.evidence.push(...(overlay.evidence ?? []));
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

function compileConditions(sources: Sources, problems: BundleProblem[]): Map<string, CompiledCondition> {
  const out = new Map<string, CompiledCondition>();
  for (const p of sources.data.policies) {
    try {
      out.set(p.id, compileCondition(p.applies_to, p.condition));
    } catch (err) {
      const where = sources.conditionLines.get(p.id) ?? { file: p.source.file, at: { line: p.source.line } };
      const line =
        err instanceof CelCompileError
          ? lineInValue(where.at, err.lineInExpression, err.column)
          : where.at.line;
      problems.push({
        file: where.file,
        line,
        reason: `policy ${p.id}: condition: ${(err as Error).message}`,
      });
    }
  }
  return out;
}

const EXAMPLE_SITE = { cwd: "/work/project", projectRoot: "/work/project", home: "/home/user" };

async function checkExamples(bundle: Bundle, problems: BundleProblem[]): Promise<void> {
  for (const p of bundle.data.policies) {
    const cases: [string | EditExample, boolean][] = [
      ...p.examples.match.map((e) => [e, true] as [string | EditExample, boolean]),
      ...p.examples.no_match.map((e) => [e, false] as [string | EditExample, boolean]),
    ];
    for (const [example, expected] of cases) {
      let outcome;
      if (p.applies_to === "command" && typeof example === "string")
        outcome = await checkCommand(bundle, { command: example }, EXAMPLE_SITE);
      else if (p.applies_to === "edit" && typeof example === "object") outcome = checkEdit(bundle, example);
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
  const sources = readShipped(options.sourceDir ?? DEFAULT_POLICY_DIR, problems);
  if (options.projectFile && fs.existsSync(options.projectFile))
    applyProject(sources, options.projectFile, options.allowLoosening === true, problems);
  if (problems.length === 0) crossCheck(sources.data, problems);
  const conditions = problems.length === 0 ? compileConditions(sources, problems) : new Map();
  if (problems.length > 0) throw new BundleError(problems);
  const bundle = new Bundle(bundleHash(sources.data), sources.data, conditions);
  if (options.verifyExamples) await checkExamples(bundle, problems);
  if (problems.length > 0) throw new BundleError(problems);
  return bundle;
}

/** The compiled bundle as written by `policy compile`: what it says, with its hash. */
export function serializeBundle(bundle: Bundle): string {
  return JSON.stringify({ bundle_hash: bundle.hash, ...bundle.data }, null, 2) + "\n";
}

export type { Evidence };
