/**
 * SARIF 2.1.0 in, one normalized result list out: ours and other tools' (CodeQL, Semgrep, GitHub code scanning
 * exports). Pure: no files, no clock. What SARIF leaves optional is tolerated (levels inherited from the rule,
 * rules in tool extensions, URIs from `artifacts`, messages from `messageStrings`); what the normalizer reads
 * must have the right shape, else SarifInputError names the JSON path. Unknown properties are kept as given.
 */
import { fallbackKey, fingerprintOf, groupKeyOf } from "./keys.js";
import type { NormalizedLog, NormalizedResult, NormalizedRun } from "./normalized.js";
import { readLedger, readResult } from "./sarif-result.js";
import { describe, isObj, obj, optArray, optObj, optStr, SarifInputError } from "./sarif-input.js";
import { readComponents } from "./sarif-rules.js";
import { baseFolders } from "./sarif-uris.js";

/** JSON text or an already parsed value: a SARIF log, checked and normalized. Throws SarifInputError. */
export function normalizeSarif(input: unknown): NormalizedLog {
  let log: unknown = input;
  if (typeof input === "string") {
    try {
      log = JSON.parse(input);
    } catch (err) {
      throw new SarifInputError("$", `not JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const root = obj(log, "$");
  const notes: string[] = [];
  const version = optStr(root.version, "$.version");
  if (version === undefined) notes.push("the log has no version: read as SARIF 2.1.0");
  else if (version !== "2.1.0")
    throw new SarifInputError("$.version", `only SARIF 2.1.0 is read, got ${describe(version)}`);
  if (root.runs === undefined) throw new SarifInputError("$.runs", "missing (a SARIF log has runs[])");
  const runs: NormalizedRun[] = [];
  const results: NormalizedResult[] = [];
  optArray(root.runs, "$.runs").forEach((rawRun, ri) => {
    const at = `$.runs[${ri}]`;
    const run = obj(rawRun, at);
    const tool = obj(run.tool, `${at}.tool`);
    const driver = obj(tool.driver, `${at}.tool.driver`);
    const toolName = optStr(driver.name, `${at}.tool.driver.name`);
    if (!toolName) throw new SarifInputError(`${at}.tool.driver.name`, "missing (every run names its tool)");
    const toolVersion =
      optStr(driver.semanticVersion, `${at}.tool.driver.semanticVersion`) ??
      optStr(driver.version, `${at}.tool.driver.version`);
    const components = readComponents(tool, `${at}.tool`);
    const bases = baseFolders(
      optObj(run.originalUriBaseIds, `${at}.originalUriBaseIds`),
      `${at}.originalUriBaseIds`,
    );
    const artifacts = optArray(run.artifacts, `${at}.artifacts`);
    const rootFolder = bases.get("%SRCROOT%") ?? [...bases.values()][0];
    const rawResults = optArray(run.results, `${at}.results`);
    const runProps = optObj(run.properties, `${at}.properties`);
    const ledger = readLedger(runProps?.finding_groups, `${at}.properties.finding_groups`);
    rawResults.forEach((rawResult, i) => {
      results.push(
        readResult(rawResult, `${at}.results[${i}]`, {
          runIndex: ri,
          tool: toolName,
          toolVersion,
          components,
          bases,
          artifacts,
          ledger,
          index: results.length,
        }),
      );
    });
    runs.push({
      tool: toolName,
      ...(toolVersion ? { version: toolVersion } : {}),
      result_count: rawResults.length,
      ...(rootFolder ? { root: rootFolder.replace(/\/$/, "") || "/" } : {}),
      ...(isObj(run.properties) ? { properties: run.properties } : {}),
    });
  });
  assignKeys(results);
  return { results, runs, ...(isObj(root.properties) ? { properties: root.properties } : {}), notes };
}

/** Position, then content: an order of results that does not depend on the order the log lists them in. */
export function contentOrder(a: NormalizedResult, b: NormalizedResult): number {
  return (
    cmp(a.tool_key, b.tool_key) ||
    cmp(a.path ?? "", b.path ?? "") ||
    (a.line ?? 0) - (b.line ?? 0) ||
    (a.column ?? 0) - (b.column ?? 0) ||
    (a.end_line ?? 0) - (b.end_line ?? 0) ||
    (a.end_column ?? 0) - (b.end_column ?? 0) ||
    cmp(a.rule_id, b.rule_id) ||
    cmp(a.message, b.message) ||
    cmp(a.snippet ?? "", b.snippet ?? "") ||
    cmp(a.level, b.level) ||
    a.index - b.index
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Computed fingerprints, ranked among identical ones by position (not by where the log lists them), group
 * keys and fallback keys.
 */
function assignKeys(results: NormalizedResult[]): void {
  const seen = new Map<string, number>();
  for (const r of [...results].sort(contentOrder)) {
    if (r.fingerprint_source.startsWith("computed")) {
      if (r.snippet) r.fingerprint_source = "computed:snippet";
      const base = fingerprintOf(r);
      const rankKey = `${r.tool_key}\0${base}`;
      const rank = seen.get(rankKey) ?? 0;
      seen.set(rankKey, rank + 1);
      r.fingerprint = `${base}:${rank}`;
    }
    if (r.group_source === "computed") r.group_key = groupKeyOf(r);
    r.fallback_key = fallbackKey(r);
  }
}
