/**
 * A SARIF run's rules (the driver's and each extension's) as the normalizer needs them, and a message's
 * text filled from its rule's `messageStrings`.
 */
import type { SarifLevel } from "./normalized.js";
import { isObj, level, obj, optArray, optObj, optStr, type Obj } from "./sarif-input.js";

export interface RuleInfo {
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
export function readComponents(tool: Obj, at: string): { driver: RuleInfo[]; extensions: RuleInfo[][] } {
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

/** A message's text: `text`, else the rule's `messageStrings[id]` with `{0}` placeholders filled. */
export function messageText(m: Obj | undefined, rule: RuleInfo | undefined, at: string): string | undefined {
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
