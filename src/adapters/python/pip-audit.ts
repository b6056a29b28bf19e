/** pip-audit: pure argv builder and parser of its `--format json` report. */
import { registerExternalTool } from "../registry.js";
import type { Vulnerability } from "../dependency-audit.js";

registerExternalTool({ name: "pip-audit", program: "pip-audit", versionArgs: ["--version"] });

/** `pip-audit -r <requirements> --format json`. */
export function pipAuditArgs(requirements: string): string[] {
  return ["-r", requirements, "--format", "json"];
}

interface PipAuditDependency {
  name?: string;
  version?: string;
  skip_reason?: string;
  vulns?: { id?: string; fix_versions?: string[]; aliases?: string[]; description?: string }[];
}

export interface PipAuditReport {
  vulnerabilities: Vulnerability[];
  /** Dependencies pip-audit did not audit (not on PyPI, unpinned, ...), as `name: reason`. */
  skipped: string[];
  dependencyCount: number;
}

/**
 * Parses pip-audit's JSON: `{"dependencies": [{name, version, vulns: [{id, fix_versions, aliases,
 * description}]} | {name, skip_reason}], "fixes": [...]}` (older releases print the dependency list
 * alone). One entry per vulnerability; undefined when the output is not such a report.
 */
export function parsePipAuditJson(output: string): PipAuditReport | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(output.slice(Math.max(0, output.search(/[[{]/))));
  } catch {
    return undefined;
  }
  const deps = Array.isArray(doc)
    ? (doc as PipAuditDependency[])
    : (doc as { dependencies?: PipAuditDependency[] } | null)?.dependencies;
  if (!Array.isArray(deps)) return undefined;
  const vulnerabilities: Vulnerability[] = [];
  const skipped: string[] = [];
  for (const dep of deps) {
    if (dep.skip_reason) skipped.push(`${dep.name ?? "?"}: ${dep.skip_reason}`);
    for (const v of dep.vulns ?? []) {
      vulnerabilities.push({
        package: dep.name ?? "",
        version: dep.version ?? "",
        id: v.id ?? "",
        fix_versions: v.fix_versions ?? [],
        aliases: v.aliases ?? [],
        description: v.description ?? "",
      });
    }
  }
  return { vulnerabilities, skipped, dependencyCount: deps.length };
}
