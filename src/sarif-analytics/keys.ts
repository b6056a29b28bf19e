/**
 * The keys results are matched by: group keys (one issue at one place, whichever tool reported it),
 * fingerprints (one finding across runs, whatever lines moved) and the rule/file/message fallback; and which
 * results look like security findings. Pure.
 */
import { createHash } from "node:crypto";
import type { NormalizedResult } from "./normalized.js";
import { toolKey } from "./tool-names.js";

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
 * A fingerprint for results that bring none: rule, file and the flagged text (the region's snippet, else the
 * message), never the line number, so lines inserted above change nothing. The tool is left out (the matcher
 * keys on the tool as both logs name it); the caller appends the rank among identical ones.
 */
export function fingerprintOf(r: NormalizedResult): string {
  const text = collapse(r.snippet ?? r.message);
  return `c1=${hash(`${r.rule_id}\0${r.path ?? ""}\0${text}`)}`;
}

/** Rule, file and message, digits in the message ignored (they are often line numbers); the matcher adds the tool. */
export function fallbackKey(r: NormalizedResult): string {
  return `f1:${hash(`${r.rule_id}\0${r.path ?? ""}\0${collapse(r.message).replace(/\d+/g, "#")}`)}`;
}

/** GitHub's `security-severity` (a CVSS-like "0.0".."10.0") of a property bag, when it has one. */
export function securitySeverity(props: Record<string, unknown> | undefined): number | undefined {
  const v = props?.["security-severity"];
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 10 ? n : undefined;
}

/**
 * Tools whose every result is a security finding (by toolKey): scanners of code, dependencies, secrets and
 * running applications. Tools that report both (CodeQL, Semgrep) say so per rule, with tags.
 */
const SECURITY_TOOLS = new Set([
  "bandit",
  "pip-audit",
  "npm-audit",
  "gosec",
  "brakeman",
  "trivy",
  "grype",
  "gitleaks",
  "trufflehog",
  "detect-secrets",
  "contrast security",
  "fortify",
  "fortify sca",
  "checkmarx",
  "security code scan",
  "owasp dependency-check",
  "dependency-check",
  "snyk",
  "snyk code",
  "zap",
  "owasp zap",
]);

export function tagsOf(props: Record<string, unknown> | undefined): string[] {
  const tags = props?.tags;
  return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === "string") : [];
}

/** `CWE-89` from "CWE-89", "cwe-089", "external/cwe/cwe-89", 89 (a taxon of the CWE taxonomy). */
function cweId(v: unknown, fromCweTaxonomy = false): string | undefined {
  if (typeof v === "number" && Number.isInteger(v) && fromCweTaxonomy) return `CWE-${v}`;
  if (typeof v !== "string") return undefined;
  const m =
    /(?:^|\/)cwe[-_/ ]?0*(\d+)$/i.exec(v.trim()) ?? (fromCweTaxonomy ? /^0*(\d+)$/.exec(v.trim()) : null);
  return m ? `CWE-${m[1]}` : undefined;
}

/**
 * The CWE ids a result carries, as GitHub reads them: tags (`external/cwe/cwe-089`, `CWE-89`), taxa of a CWE
 * taxonomy (the result's `taxa`, the rule's `relationships`), and `cwe` / `category` properties.
 */
export function securityTaxa(
  tags: readonly string[],
  taxa: readonly unknown[],
  fields: readonly unknown[],
): string[] {
  const out = new Set<string>();
  for (const t of tags) {
    const id = cweId(t);
    if (id) out.add(id);
  }
  for (const t of taxa) {
    if (typeof t !== "object" || t === null) continue;
    const ref = t as { id?: unknown; toolComponent?: { name?: unknown } };
    const cwe = typeof ref.toolComponent?.name === "string" && /cwe/i.test(ref.toolComponent.name);
    const id = cweId(ref.id, cwe);
    if (id) out.add(id);
  }
  for (const f of fields)
    for (const v of Array.isArray(f) ? f : [f]) {
      const id = cweId(v, typeof v === "number");
      if (id) out.add(id);
    }
  return [...out].sort();
}

/**
 * Security-like, as GitHub code scanning reads it and more: a `security-severity` (result or rule), a
 * `security`, CWE or OWASP tag, a CWE taxon or property, a security tool (also as a policy layer's
 * `source_tool`), ruff's flake8-bandit `S` rules, or a `.security.` rule path (Semgrep).
 */
export function isSecurityLike(r: NormalizedResult): boolean {
  if (r.security_severity !== undefined) return true;
  if (r.cwe?.length) return true;
  const tags = [...tagsOf(r.rule_properties), ...tagsOf(r.properties)].map((t) => t.toLowerCase());
  if (tags.some((t) => t === "security" || /(^|\/)(cwe|owasp)([-_/ :]|$)/.test(t) || t.startsWith("owasp")))
    return true;
  if (SECURITY_TOOLS.has(r.tool_key) || (r.source_tool && SECURITY_TOOLS.has(toolKey(r.source_tool))))
    return true;
  const tool = r.source_tool?.toLowerCase() ?? r.tool_key;
  const rule = r.source_code ?? r.rule_id;
  if (tool === "ruff" && /^S\d{3}$/.test(rule)) return true;
  return /(^|[./])security[./]/i.test(r.rule_id);
}
