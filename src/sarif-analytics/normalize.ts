/**
 * SARIF 2.1.0 in, one normalized result list out: ours and other tools' (CodeQL, Semgrep, GitHub code scanning
 * exports). Pure: no files, no clock. What SARIF leaves optional is tolerated (levels inherited from the rule,
 * rules in tool extensions, URIs from `artifacts`, messages from `messageStrings`); what the normalizer reads
 * must have the right shape, else SarifInputError names the JSON path. Unknown properties are kept as given.
 */
import {
  fallbackKey,
  fingerprintOf,
  groupKeyOf,
  isSecurityLike,
  securitySeverity,
  securityTaxa,
  tagsOf,
} from "./keys.js";
import { toolKey } from "./tool-names.js";

import {
  LEVELS,
  type BaselineState,
  type NormalizedLog,
  type NormalizedResult,
  type NormalizedRun,
  type SarifLevel,
} from "./normalized.js";

const BASELINE_STATES: readonly string[] = ["new", "unchanged", "updated", "absent"];
const SUPPRESSION_STATUSES: readonly string[] = ["accepted", "underReview", "rejected"];

/** Malformed SARIF: `jsonPath` ($.runs[0].results[3].level) says where. */
export class SarifInputError extends Error {
  constructor(
    readonly jsonPath: string,
    message: string,
  ) {
    super(`${jsonPath}: ${message}`);
    this.name = "SarifInputError";
  }
}

type Obj = Record<string, unknown>;

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

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function obj(v: unknown, at: string): Obj {
  if (!isObj(v)) throw new SarifInputError(at, `expected an object, got ${describe(v)}`);
  return v;
}

function optObj(v: unknown, at: string): Obj | undefined {
  return v === undefined || v === null ? undefined : obj(v, at);
}

function optArray(v: unknown, at: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new SarifInputError(at, `expected an array, got ${describe(v)}`);
  return v;
}

function optStr(v: unknown, at: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new SarifInputError(at, `expected a string, got ${describe(v)}`);
  return v;
}

function optInt(v: unknown, at: string, min: number): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min)
    throw new SarifInputError(at, `expected an integer ≥ ${min}, got ${describe(v)}`);
  return v;
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return typeof v === "object" ? "an object" : `${typeof v} ${String(v)}`;
}

function level(v: unknown, at: string): SarifLevel | undefined {
  const s = optStr(v, at);
  if (s === undefined) return undefined;
  if (!(LEVELS as readonly string[]).includes(s))
    throw new SarifInputError(at, `expected one of error, warning, note, none, got ${describe(s)}`);
  return s as SarifLevel;
}

/** The folder a file: URI names (undefined for other schemes). */
function fileUriPath(uri: string): string | undefined {
  if (!/^file:/i.test(uri)) return undefined;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return undefined;
  }
}

function decodeRelative(uri: string): string {
  let out: string;
  try {
    out = uri.split("/").map(decodeURIComponent).join("/");
  } catch {
    out = uri;
  }
  return out.replace(/^(\.\/)+/, "");
}

/** `originalUriBaseIds` as absolute folders (each may chain to another base; followed a few steps). */
function baseFolders(bases: Obj | undefined, at: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!bases) return out;
  const resolve = (id: string, depth: number): string | undefined => {
    const b = optObj(bases[id], `${at}.${id}`);
    const uri = b && optStr(b.uri, `${at}.${id}.uri`);
    if (!b || uri === undefined) return undefined;
    const abs = fileUriPath(uri);
    if (abs) return abs;
    const parentId = optStr(b.uriBaseId, `${at}.${id}.uriBaseId`);
    if (!parentId || depth > 4) return undefined;
    const parent = resolve(parentId, depth + 1);
    return parent ? joinPath(parent, decodeRelative(uri)) : undefined;
  };
  for (const id of Object.keys(bases)) {
    const folder = resolve(id, 0);
    if (folder) out.set(id, folder.endsWith("/") ? folder : `${folder}/`);
  }
  return out;
}

function joinPath(folder: string, rel: string): string {
  return `${folder.replace(/\/+$/, "")}/${rel.replace(/^\/+/, "")}`;
}

interface RuleInfo {
  id?: string;
  name?: string;
  level?: SarifLevel;
  helpUri?: string;
  properties?: Obj;
  messageStrings?: Obj;
  shortDescription?: string;
  /** Targets of the rule's relationships (`{id, toolComponent: {name}}`: CWE taxa), as given. */
  related?: unknown[];
}

function readRule(v: unknown, at: string): RuleInfo {
  const r = obj(v, at);
  const config = optObj(r.defaultConfiguration, `${at}.defaultConfiguration`);
  const short = optObj(r.shortDescription, `${at}.shortDescription`);
  return {
    id: optStr(r.id, `${at}.id`),
    name: optStr(r.name, `${at}.name`),
    level: config ? level(config.level, `${at}.defaultConfiguration.level`) : undefined,
    helpUri: optStr(r.helpUri, `${at}.helpUri`),
    properties: optObj(r.properties, `${at}.properties`),
    messageStrings: optObj(r.messageStrings, `${at}.messageStrings`),
    shortDescription: short ? optStr(short.text, `${at}.shortDescription.text`) : undefined,
    related: optArray(r.relationships, `${at}.relationships`).map((rel) =>
      isObj(rel) ? rel.target : undefined,
    ),
  };
}

/** The rules of the driver, and of each extension in order (a result's `rule.toolComponent.index`). */
function readComponents(tool: Obj, at: string): { driver: RuleInfo[]; extensions: RuleInfo[][] } {
  const driver = obj(tool.driver, `${at}.driver`);
  const rules = (c: Obj, cat: string) =>
    optArray(c.rules, `${cat}.rules`).map((r, i) => readRule(r, `${cat}.rules[${i}]`));
  return {
    driver: rules(driver, `${at}.driver`),
    extensions: optArray(tool.extensions, `${at}.extensions`).map((e, i) =>
      rules(obj(e, `${at}.extensions[${i}]`), `${at}.extensions[${i}]`),
    ),
  };
}

function celOf(props: Obj | undefined): unknown {
  if (!props) return undefined;
  const ethos = isObj(props["coding-ethos"]) ? props["coding-ethos"] : undefined;
  return props.cel ?? props["cel-provenance"] ?? props.celProvenance ?? ethos?.cel ?? ethos?.cel_provenance;
}

/** A message's text: `text`, else the rule's `messageStrings[id]` with `{0}` placeholders filled. */
function messageText(m: Obj | undefined, rule: RuleInfo | undefined, at: string): string | undefined {
  if (!m) return undefined;
  const text = optStr(m.text, `${at}.text`);
  if (text !== undefined) return text;
  const id = optStr(m.id, `${at}.id`);
  const template = id && rule?.messageStrings?.[id];
  if (!isObj(template) || typeof template.text !== "string") return id;
  const args = optArray(m.arguments, `${at}.arguments`);
  return template.text.replace(/\{(\d+)\}/g, (all, n: string) => {
    const a = args[Number(n)];
    return typeof a === "string" ? a : all;
  });
}

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

interface RunContext {
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
interface LedgerEntry {
  key: string;
  id?: string;
  policy_id?: string;
  file?: string;
  line?: number;
}

function readLedger(v: unknown, at: string): LedgerEntry[] {
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

function readResult(raw: unknown, at: string, ctx: RunContext): NormalizedResult {
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
