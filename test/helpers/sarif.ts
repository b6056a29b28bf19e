/**
 * SARIF checks for tests: the OASIS SARIF 2.1.0 schema (JSON Schema draft-04, copied unchanged from
 * /work/shared/data into test/fixtures/sarif) compiled with ajv-draft-04 and ajv-formats, and fix application.
 *
 * A validator that accepts everything checks nothing (an earlier copy of the schema wrapped its root in
 * `definitions.Root`, and every log "validated"): before the first use, the helper proves its validator
 * rejects `42`, `{}` and a log without `runs`, and accepts a minimal valid log; it throws otherwise.
 */
import fs from "node:fs";
import path from "node:path";
import AjvDraft04Module from "ajv-draft-04";
import addFormatsModule from "ajv-formats";
import { FIXTURES } from "./server.js";

type Validate = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string }[] | null;
};
interface AjvLike {
  compile(schema: object): Validate;
}
// Both are CommonJS: their default export is the class / function itself.
const AjvDraft04 = ((AjvDraft04Module as unknown as { default?: unknown }).default ??
  AjvDraft04Module) as new (options: object) => AjvLike;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: AjvLike,
) => AjvLike;

export const SARIF_SCHEMA_FILE = path.join(FIXTURES, "sarif", "sarif-schema-2.1.0.json");

/** Inputs the schema must refuse, each with why. */
export const MUST_REJECT: readonly [string, unknown][] = [
  ["a number", 42],
  ["an empty object", {}],
  ["a log without runs", { version: "2.1.0" }],
];
const MINIMAL_VALID = { version: "2.1.0", runs: [{ tool: { driver: { name: "t" } } }] };

let compiled: Validate | undefined;

function errorsOf(validate: Validate, log: unknown): string[] {
  if (validate(log)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`);
}

/** The validator, compiled once and proven able to fail. */
export function sarifValidator(): Validate {
  if (compiled) return compiled;
  const schema = JSON.parse(fs.readFileSync(SARIF_SCHEMA_FILE, "utf8")) as { $schema?: string };
  if (schema.$schema !== "http://json-schema.org/draft-04/schema#")
    throw new Error(`${SARIF_SCHEMA_FILE} is not the draft-04 OASIS schema (its $schema: ${schema.$schema})`);
  const ajv = new AjvDraft04({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  for (const [what, value] of MUST_REJECT)
    if (validate(value)) throw new Error(`the SARIF validator accepts ${what}: it would check nothing`);
  const minimal = errorsOf(validate, MINIMAL_VALID);
  if (minimal.length)
    throw new Error(`the SARIF validator refuses a minimal valid log: ${minimal.join("; ")}`);
  compiled = validate;
  return validate;
}

/** The schema's complaints about a log ([] when it validates). */
export function sarifErrors(log: unknown): string[] {
  return errorsOf(sarifValidator(), log);
}

interface Replacement {
  deletedRegion: { startLine: number; startColumn: number; endLine: number; endColumn: number };
  insertedContent?: { text: string };
}

/** The text with a SARIF fix's replacements applied (1-based lines, UTF-16 columns, end exclusive). */
export function applySarifFix(text: string, replacements: readonly Replacement[]): string {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  const offset = (line: number, column: number) =>
    (line - 1 < starts.length ? (starts[line - 1] as number) : text.length) + column - 1;
  const edits = replacements
    .map((r) => ({
      start: offset(r.deletedRegion.startLine, r.deletedRegion.startColumn),
      end: offset(r.deletedRegion.endLine, r.deletedRegion.endColumn),
      text: r.insertedContent?.text ?? "",
    }))
    .sort((a, b) => b.start - a.start);
  let out = text;
  for (const e of edits) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}
