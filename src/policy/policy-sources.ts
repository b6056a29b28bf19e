/**
 * Reading the bundle's sources: the shipped YAML and skills under policy/, and a project's
 * `.mcp-code-quality/policy.yaml` applied over them (additions, tightenings, and loosenings only with the
 * operator's flag). Validated with zod, every problem a BundleProblem naming file, line and reason. Loaded
 * only when a source must be parsed (a hook that reads the shipped snapshot never loads YAML or zod).
 */
import fs from "node:fs";
import path from "node:path";
import { severityRank, type BundleData, type Policy, type Principle, type Skill } from "./bundle.js";
import type { ShippedSources } from "./shipped-snapshot.js";
import {
  evidenceFileSchema,
  policiesFileSchema,
  principlesFileSchema,
  projectPolicyFileSchema,
  skillFrontMatterSchema,
  type PolicySource,
} from "./schema.js";
import {
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

const MAX_SOURCE_BYTES = 1024 * 1024;

export function readText(file: string, problems: BundleProblem[]): string | undefined {
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

type Sources = ShippedSources;

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
export function applyProject(
  sources: Sources,
  file: string,
  allowLoosening: boolean,
  problems: BundleProblem[],
  given?: string,
): void {
  const text = given ?? readText(file, problems);
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
    // What an agent is told to do is part of the guard: advice could point at a bypass.
    if (o.message !== undefined && o.message !== shipped.message) loosening.push("replaces its message");
    if (o.advice !== undefined && o.advice !== shipped.advice) loosening.push("replaces its advice");
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
    const condition = o.condition ?? shipped.condition;
    if (o.condition) conditionLines.set(o.id, { file, at: valueStartLine(source, [...at, "condition"]) });
    // also_when is its own expression, compiled alone and ORed with the condition as a compiled function:
    // its text is never pasted into the shipped one (`false) ? false : (false` cannot turn a policy off).
    const alsoWhen = o.condition ? [] : [...(shipped.also_when ?? [])];
    if (o.also_when) {
      conditionLines.set(`${o.id}@also_when/${alsoWhen.length}`, {
        file,
        at: valueStartLine(source, [...at, "also_when"]),
      });
      alsoWhen.push(o.also_when);
    }
    data.policies[index] = {
      ...shipped,
      severity: o.severity ?? shipped.severity,
      condition,
      ...(alsoWhen.length ? { also_when: alsoWhen } : {}),
      message: o.message ?? shipped.message,
      advice: o.advice ?? shipped.advice,
      skill: o.skill ?? shipped.skill,
      overridden_by: { file, line: lineOf(source, at) },
    };
  });
  data.evidence.push(...(overlay.evidence ?? []));
}
