/**
 * The shape checks the SARIF normalizer reads with: each takes a value and its JSON path, and returns it
 * typed or throws SarifInputError naming that path ($.runs[0].results[3].level).
 */
import { LEVELS, type SarifLevel } from "./normalized.js";

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

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export function obj(v: unknown, at: string): Obj {
  if (!isObj(v)) throw new SarifInputError(at, `expected an object, got ${describe(v)}`);
  return v;
}

export function optObj(v: unknown, at: string): Obj | undefined {
  return v === undefined || v === null ? undefined : obj(v, at);
}

export function optArray(v: unknown, at: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new SarifInputError(at, `expected an array, got ${describe(v)}`);
  return v;
}

export function optStr(v: unknown, at: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new SarifInputError(at, `expected a string, got ${describe(v)}`);
  return v;
}

export function optInt(v: unknown, at: string, min: number): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min)
    throw new SarifInputError(at, `expected an integer ≥ ${min}, got ${describe(v)}`);
  return v;
}

export function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return typeof v === "object" ? "an object" : `${typeof v} ${String(v)}`;
}

export function level(v: unknown, at: string): SarifLevel | undefined {
  const s = optStr(v, at);
  if (s === undefined) return undefined;
  if (!(LEVELS as readonly string[]).includes(s))
    throw new SarifInputError(at, `expected one of error, warning, note, none, got ${describe(s)}`);
  return s as SarifLevel;
}
