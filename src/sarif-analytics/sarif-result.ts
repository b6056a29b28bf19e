/**
 * One SARIF result read into a NormalizedResult: its rule, location, state (baseline, suppressions), the
 * policy layer's properties, security taxa, and any fingerprint or group the producer gave.
 */
import { isSecurityLike, securitySeverity, securityTaxa, tagsOf } from "./keys.js";
import type { BaselineState, NormalizedResult } from "./normalized.js";
import {
  describe,
  isObj,
  level,
  obj,
  optArray,
  optInt,
  optObj,
  optStr,
  SarifInputError,
  type Obj,
} from "./sarif-input.js";
import { messageText, type RuleInfo } from "./sarif-rules.js";
import { decodeRelative, fileUriPath, joinPath } from "./sarif-uris.js";
import { toolKey } from "./tool-names.js";

const BASELINE_STATES: readonly string[] = ["new", "unchanged", "updated", "absent"];
const SUPPRESSION_STATUSES: readonly string[] = ["accepted", "underReview", "rejected"];

const RESULT_MEMBERS = new Set([
  "guid",
  "correlationGuid",
  "ruleId",
  "ruleIndex",
  "rule",
  "taxa",
  "kind",
  "level",
  "message",
  "locations",
  "analysisTarget",
  "webRequest",
  "webResponse",
  "fingerprints",
  "partialFingerprints",
  "codeFlows",
  "graphs",
  "graphTraversals",
  "stacks",
  "relatedLocations",
  "suppressions",
  "baselineState",
  "rank",
  "attachments",
  "workItemUris",
  "hostedViewerUri",
  "provenance",
  "fixes",
  "occurrenceCount",
  "properties",
]);

function celOf(props: Obj | undefined): unknown {
  if (!props) return undefined;
  const ethos = isObj(props["coding-ethos"]) ? props["coding-ethos"] : undefined;
  return props.cel ?? props["cel-provenance"] ?? props.celProvenance ?? ethos?.cel ?? ethos?.cel_provenance;
}

export interface RunContext {
  runIndex: number;
  tool: string;
  toolVersion?: string;
  components: { driver: RuleInfo[]; extensions: RuleInfo[][] };
  bases: Map<string, string>;
  artifacts: unknown[];
  ledger: LedgerEntry[];
  index: number;
}

/** An entry of seed 002's `runs[].properties.finding_groups`: a group and where its results are. */
export interface LedgerEntry {
  key: string;
  id?: string;
  policy_id?: string;
  file?: string;
  line?: number;
}

export function readLedger(v: unknown, at: string): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  optArray(v, at).forEach((raw, i) => {
    const e = obj(raw, `${at}[${i}]`);
    const key = optStr(e.key ?? e.group_key, `${at}[${i}].key`);
    if (!key) return;
    const line = e.line;
    out.push({
      key,
      id: optStr(e.id ?? e.group_id, `${at}[${i}].id`),
      policy_id: optStr(e.policy_id, `${at}[${i}].policy_id`),
      file: optStr(e.file ?? e.path, `${at}[${i}].file`),
      line: typeof line === "number" ? line : undefined,
    });
  });
  return out;
}

/** A string property of the result's bag, else its rule's. */
function prop(
  props: Obj | undefined,
  rule: RuleInfo | undefined,
  key: string,
  at: string,
): string | undefined {
  const own = props?.[key];
  if (own !== undefined && own !== null) return optStr(own, `${at}.properties.${key}`);
  const v = rule?.properties?.[key];
  return typeof v === "string" && v ? v : undefined;
}

function ruleFor(r: Obj, at: string, ctx: RunContext): RuleInfo | undefined {
  const ref = optObj(r.rule, `${at}.rule`);
  const index = optInt(
    ref?.index ?? r.ruleIndex,
    ref?.index !== undefined ? `${at}.rule.index` : `${at}.ruleIndex`,
    -1,
  );
  const component = optObj(ref?.toolComponent, `${at}.rule.toolComponent`);
  const componentIndex = component
    ? optInt(component.index, `${at}.rule.toolComponent.index`, -1)
    : undefined;
  const rules =
    componentIndex !== undefined && componentIndex >= 0
      ? (ctx.components.extensions[componentIndex] ?? [])
      : ctx.components.driver;
  const id = optStr(r.ruleId, `${at}.ruleId`) ?? optStr(ref?.id, `${at}.rule.id`);
  if (index !== undefined && index >= 0 && rules[index]) return rules[index];
  if (id === undefined) return undefined;
  // No index: by id, in the driver then the extensions (CodeQL puts query rules in extensions).
  return [ctx.components.driver, ...ctx.components.extensions].flat().find((x) => x.id === id);
}

export function readResult(raw: unknown, at: string, ctx: RunContext): NormalizedResult {
  const r = obj(raw, at);
  const rule = ruleFor(r, at, ctx);
  const ref = optObj(r.rule, `${at}.rule`);
  const ruleId =
    optStr(r.ruleId, `${at}.ruleId`) ?? optStr(ref?.id, `${at}.rule.id`) ?? rule?.id ?? "(no rule)";
  const kind = optStr(r.kind, `${at}.kind`);
  // SARIF §3.27.10: a result's level defaults to its rule's configured level, else warning; not-a-failure kinds are none.
  const lvl =
    level(r.level, `${at}.level`) ?? (kind && kind !== "fail" ? "none" : (rule?.level ?? "warning"));
  const message =
    messageText(optObj(r.message, `${at}.message`), rule, `${at}.message`) ??
    rule?.shortDescription ??
    ruleId;
  const out: NormalizedResult = {
    index: ctx.index,
    run_index: ctx.runIndex,
    tool: ctx.tool,
    tool_key: toolKey(ctx.tool),
    ...(ctx.toolVersion ? { tool_version: ctx.toolVersion } : {}),
    rule_id: ruleId,
    ...(rule?.name && rule.name !== ruleId ? { rule_name: rule.name } : {}),
    level: lvl,
    ...(kind && kind !== "fail" ? { kind } : {}),
    message,
    fingerprint: "",
    fingerprint_source: "computed:message",
    group_key: "",
    group_source: "computed",
    fallback_key: "",
    security: false,
  };
  readLocation(r, at, ctx, out);
  const props = optObj(r.properties, `${at}.properties`);
  if (props && Object.keys(props).length) out.properties = props;
  if (rule?.properties && Object.keys(rule.properties).length) out.rule_properties = rule.properties;
  if (rule?.helpUri) out.help_uri = rule.helpUri;
  const cel = celOf(props) ?? celOf(rule?.properties);
  if (cel !== undefined) out.cel = cel;
  readState(r, at, out);
  // Seed 002's policy layer: the policy, skill and the tool and code the result came from.
  const policyId = prop(props, rule, "policy_id", at);
  if (policyId) out.policy_id = policyId;
  const skillId = prop(props, rule, "skill_id", at);
  if (skillId) out.skill_id = skillId;
  const sourceTool = prop(props, rule, "source_tool", at);
  if (sourceTool) out.source_tool = sourceTool;
  const code = optStr(props?.code, `${at}.properties.code`);
  if (code) out.source_code = code;
  const severity = securitySeverity(props) ?? securitySeverity(rule?.properties);
  if (severity !== undefined) out.security_severity = severity;
  const cwe = securityTaxa(
    [...tagsOf(props), ...tagsOf(rule?.properties)],
    [...optArray(r.taxa, `${at}.taxa`), ...(rule?.related ?? [])],
    [props?.cwe, rule?.properties?.cwe, props?.category, rule?.properties?.category],
  );
  if (cwe.length) out.cwe = cwe;
  out.security = isSecurityLike(out);
  const given = givenFingerprint(r, at);
  if (given) Object.assign(out, given);
  const group = givenGroup(r, props, at) ?? ledgerGroup(out, ctx.ledger);
  if (group)
    Object.assign(
      out,
      { group_key: group.key, group_source: "sarif" as const },
      group.id ? { group_id: group.id } : {},
    );
  const extra = Object.fromEntries(Object.entries(r).filter(([k]) => !RESULT_MEMBERS.has(k)));
  if (Object.keys(extra).length) out.extra = extra;
  return out;
}

function readLocation(r: Obj, at: string, ctx: RunContext, out: NormalizedResult): void {
  const locations = optArray(r.locations, `${at}.locations`);
  if (!locations.length) return;
  const lat = `${at}.locations[0]`;
  const physical = optObj(obj(locations[0], lat).physicalLocation, `${lat}.physicalLocation`);
  if (!physical) return;
  const pat = `${lat}.physicalLocation`;
  const artifact = optObj(physical.artifactLocation, `${pat}.artifactLocation`);
  if (artifact) {
    let uri = optStr(artifact.uri, `${pat}.artifactLocation.uri`);
    let base = optStr(artifact.uriBaseId, `${pat}.artifactLocation.uriBaseId`);
    const idx = optInt(artifact.index, `${pat}.artifactLocation.index`, -1);
    if (uri === undefined && idx !== undefined && idx >= 0) {
      // The URI lives in run.artifacts[index].location.
      const a = optObj(ctx.artifacts[idx], `$.runs[${ctx.runIndex}].artifacts[${idx}]`);
      const loc = optObj(a?.location, `$.runs[${ctx.runIndex}].artifacts[${idx}].location`);
      uri = optStr(loc?.uri, `$.runs[${ctx.runIndex}].artifacts[${idx}].location.uri`);
      base ??= optStr(loc?.uriBaseId, `$.runs[${ctx.runIndex}].artifacts[${idx}].location.uriBaseId`);
    }
    if (uri !== undefined) {
      const abs = fileUriPath(uri);
      if (abs) {
        out.absolute_path = abs;
        const rootFolder = ctx.bases.get("%SRCROOT%");
        out.path = rootFolder && abs.startsWith(rootFolder) ? abs.slice(rootFolder.length) : abs;
      } else {
        out.path = decodeRelative(uri);
        if (base) {
          out.uri_base_id = base;
          const folder = ctx.bases.get(base);
          if (folder) out.absolute_path = joinPath(folder, out.path);
        }
      }
    }
  }
  const region = optObj(physical.region, `${pat}.region`);
  if (region) {
    const rat = `${pat}.region`;
    const line = optInt(region.startLine, `${rat}.startLine`, 1);
    if (line !== undefined) out.line = line;
    const column = optInt(region.startColumn, `${rat}.startColumn`, 1);
    if (column !== undefined) out.column = column;
    const endLine = optInt(region.endLine, `${rat}.endLine`, 1);
    if (endLine !== undefined) out.end_line = endLine;
    const endColumn = optInt(region.endColumn, `${rat}.endColumn`, 1);
    if (endColumn !== undefined) out.end_column = endColumn;
    const snippet = optObj(region.snippet, `${rat}.snippet`);
    const text = snippet && optStr(snippet.text, `${rat}.snippet.text`);
    if (text) out.snippet = text;
  }
}

/** Our `mcq/v1` first, then any partial fingerprint (sorted keys), then full fingerprints. */
function givenFingerprint(
  r: Obj,
  at: string,
): Pick<NormalizedResult, "fingerprint" | "fingerprint_source"> | undefined {
  for (const member of ["partialFingerprints", "fingerprints"] as const) {
    const bag = optObj(r[member], `${at}.${member}`);
    if (!bag) continue;
    const keys = Object.keys(bag)
      .filter((k) => typeof bag[k] === "string" && bag[k] !== "")
      .sort((a, b) => (a === "mcq/v1" ? -1 : b === "mcq/v1" ? 1 : a < b ? -1 : a > b ? 1 : 0));
    const key = keys[0];
    if (!key) continue;
    const value = bag[key] as string;
    // Ours carry their version prefix already (mcq/v1:<hash>:<rank>).
    const fingerprint = value.startsWith(`${key}:`) ? value : `${key}=${value}`;
    return { fingerprint, fingerprint_source: `${member}:${key}` };
  }
  return undefined;
}

/** baselineState (the producer's comparison) and whether a suppression is in effect (SARIF §3.27.23, §3.35). */
function readState(r: Obj, at: string, out: NormalizedResult): void {
  const state = optStr(r.baselineState, `${at}.baselineState`);
  if (state !== undefined) {
    if (!BASELINE_STATES.includes(state))
      throw new SarifInputError(
        `${at}.baselineState`,
        `expected one of ${BASELINE_STATES.join(", ")}, got ${describe(state)}`,
      );
    out.baseline_state = state as BaselineState;
  }
  const suppressions = optArray(r.suppressions, `${at}.suppressions`);
  let inEffect = false;
  suppressions.forEach((raw, i) => {
    const status = optStr(obj(raw, `${at}.suppressions[${i}]`).status, `${at}.suppressions[${i}].status`);
    if (status !== undefined && !SUPPRESSION_STATUSES.includes(status))
      throw new SarifInputError(
        `${at}.suppressions[${i}].status`,
        `expected one of ${SUPPRESSION_STATUSES.join(", ")}, got ${describe(status)}`,
      );
    // An absent status is a suppression in effect; under review or rejected ones leave the result open.
    if (status === undefined || status === "accepted") inEffect = true;
  });
  if (inEffect) out.suppressed = true;
}

/**
 * SARIF's own equivalence class (correlationGuid) or a recorded cross-tool group key: seed 002's
 * `coding_ethos_group_key` (with `coding_ethos_group_id`), `coding-ethos.group_key`, `group_key`.
 */
function givenGroup(r: Obj, props: Obj | undefined, at: string): { key: string; id?: string } | undefined {
  const guid = optStr(r.correlationGuid, `${at}.correlationGuid`);
  if (guid) return { key: `guid:${guid}` };
  const ethos = props && isObj(props["coding-ethos"]) ? props["coding-ethos"] : undefined;
  const key =
    props?.coding_ethos_group_key ??
    ethos?.group_key ??
    ethos?.group_id ??
    props?.group_key ??
    props?.groupKey;
  const id = props?.coding_ethos_group_id ?? ethos?.group_id;
  return typeof key === "string" && key
    ? { key: `group:${key}`, ...(typeof id === "string" && id ? { id } : {}) }
    : undefined;
}

/** The finding_groups entry a result belongs to: its policy (when the entry names one), file and line. */
function ledgerGroup(
  r: NormalizedResult,
  ledger: readonly LedgerEntry[],
): { key: string; id?: string } | undefined {
  if (!ledger.length || r.path === undefined) return undefined;
  const e = ledger.find(
    (g) =>
      g.file === r.path &&
      (g.line === undefined || g.line === r.line) &&
      (g.policy_id === undefined || g.policy_id === r.policy_id || g.policy_id === r.rule_id),
  );
  return e ? { key: `group:${e.key}`, ...(e.id ? { id: e.id } : {}) } : undefined;
}
