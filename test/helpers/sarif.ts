/** SARIF checks for tests: the 2.1.0 schema (a copy in test/fixtures/sarif) via ajv, and fix application. */
import fs from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { FIXTURES } from "./server.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const schema = JSON.parse(
  fs.readFileSync(path.join(FIXTURES, "sarif", "sarif-schema-2.1.0.json"), "utf8"),
) as object;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(schema);

/** The schema's complaints about a log ([] when it validates). */
export function sarifErrors(log: unknown): string[] {
  if (validate(log)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""}`);
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
