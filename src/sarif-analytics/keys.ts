/**
 * The keys results are matched by: group keys (one issue at one place, whichever tool reported it),
 * fingerprints (one finding across runs, whatever lines moved) and the rule/file/message fallback; and which
 * results look like security findings. Pure.
 */
import { createHash } from "node:crypto";
import type { NormalizedResult } from "./normalize.js";

const hash = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 24);
const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

/**
 * A rule id as the same check is named by every tool that has it: ruff's flake8-bandit `S105` is bandit's
 * `B105`, typescript-eslint's extension rules are ESLint's core rule, pyflakes/pycodestyle codes are shared by
 * ruff and flake8 as they are; anything else is its lower-cased id.
 */
export function canonicalRule(tool: string, rule: string): string {
  const t = tool.toLowerCase();
  if (t === "ruff" && /^S\d{3}$/.test(rule)) return `B${rule.slice(1)}`;
  if (/^[A-Z]+\d+$/.test(rule)) return rule;
  return rule.replace(/^@typescript-eslint\//, "").toLowerCase();
}

/** Same file, same start line, same canonical rule: `g1:<hash>`. */
export function groupKeyOf(r: NormalizedResult): string {
  return `g1:${hash(`${r.path ?? ""}\0${r.line ?? 0}\0${canonicalRule(r.tool, r.rule_id)}`)}`;
}

/**
 * A fingerprint for results that bring none: tool, rule, file and the flagged text (the region's snippet,
 * else the message), never the line number, so lines inserted above change nothing. The caller appends the
 * rank among identical ones.
 */
export function fingerprintOf(r: NormalizedResult): string {
  const text = collapse(r.snippet ?? r.message);
  return `c1=${hash(`${r.tool}\0${r.rule_id}\0${r.path ?? ""}\0${text}`)}`;
}

/** Tool, rule, file and message, digits in the message ignored (they are often line numbers). */
export function fallbackKey(r: NormalizedResult): string {
  return `f1:${hash(`${r.tool}\0${r.rule_id}\0${r.path ?? ""}\0${collapse(r.message).replace(/\d+/g, "#")}`)}`;
}

/** GitHub's `security-severity` (a CVSS-like "0.0".."10.0") of a property bag, when it has one. */
export function securitySeverity(props: Record<string, unknown> | undefined): number | undefined {
  const v = props?.["security-severity"];
  const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 10 ? n : undefined;
}

const SECURITY_TOOLS = new Set([
  "bandit",
  "pip-audit",
  "npm-audit",
  "gosec",
  "brakeman",
  "trivy",
  "gitleaks",
]);

function tagsOf(props: Record<string, unknown> | undefined): string[] {
  const tags = props?.tags;
  return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === "string") : [];
}

/**
 * Security-like: a `security-severity`, a `security` or CWE tag (CodeQL, Semgrep), a security tool, ruff's
 * flake8-bandit `S` rules, a `.security.` rule path (Semgrep) or a CWE id in the rule's category.
 */
export function isSecurityLike(r: NormalizedResult): boolean {
  if (r.security_severity !== undefined) return true;
  const tags = [...tagsOf(r.rule_properties), ...tagsOf(r.properties)].map((t) => t.toLowerCase());
  if (tags.some((t) => t === "security" || t.startsWith("cwe") || t.includes("/cwe/"))) return true;
  const tool = r.tool.toLowerCase();
  if (SECURITY_TOOLS.has(tool)) return true;
  if (tool === "ruff" && /^S\d{3}$/.test(r.rule_id)) return true;
  if (/(^|[./])security[./]/i.test(r.rule_id)) return true;
  const category = r.properties?.category;
  return typeof category === "string" && /^CWE-\d+$/i.test(category);
}
