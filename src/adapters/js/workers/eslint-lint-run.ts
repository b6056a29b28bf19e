/**
 * The ESLint worker's lint runs: files linted through an instance, going on past a rule that crashed on a
 * file, and each result shaped into the wire report (with rule docs URLs and line/column corrections).
 */
import fs from "node:fs";
import path from "node:path";
import { WorkerHandlerError } from "../../../exec/worker-protocol.js";
import {
  lineStarts,
  toWireCorrections,
  toWireMessage,
  type EslintRequestParams,
  type WireFileReport,
} from "../eslint-wire.js";
import { createInstance, instance, type EslintInstance, type EslintResult } from "./eslint-instances.js";

/** A rule that threw while linting a file: ESLint names both in the error. */
function crashOf(err: unknown): { file: string; rule: string; message: string } | undefined {
  const e = err as { ruleId?: string; message?: string };
  const file = /\nOccurred while linting (.+?):\d+/.exec(e?.message ?? "")?.[1];
  if (!e?.ruleId || !file) return undefined;
  return { file, rule: e.ruleId, message: (e.message ?? "").split("\n")[0] ?? "" };
}

/** Crashes of rules at most this many times per request before the error is the request's. */
const MAX_CRASHES = 10;

/**
 * lintFiles that goes on when a rule crashes on a file: the file is left out of the run and linted on its
 * own with the crashing rule off (again for the next one), the crash listed in its `errors`.
 */
export async function lintAround(
  params: EslintRequestParams,
  fix: boolean,
): Promise<{ results: EslintResult[]; errors: Map<string, string[]> }> {
  const errors = new Map<string, string[]>();
  const off = new Map<string, string[]>();
  const crashed = (err: unknown) => {
    const c = crashOf(err);
    if (!c || [...errors.values()].flat().length >= MAX_CRASHES) throw err;
    errors.set(c.file, [...(errors.get(c.file) ?? []), `rule ${c.rule} crashed: ${c.message}`]);
    off.set(c.file, [...(off.get(c.file) ?? []), c.rule]);
  };
  for (;;) {
    try {
      const ignore = [...off.keys()].map((f) => path.relative(params.cwd, f));
      const eslint = ignore.length
        ? await createInstance(params, fix, { ignore })
        : await instance(params, fix);
      let results: EslintResult[] = [];
      try {
        results = await lintFiles(eslint, params.patterns);
      } catch (err) {
        // Only the crashed files were asked for: the rest is nothing.
        if (!(ignore.length && err instanceof WorkerHandlerError)) throw err;
      }
      for (const [file, rules] of off) {
        const alone = await createInstance(params, fix, { off: rules });
        results.push(...(await alone.lintFiles([file])));
      }
      return { results, errors };
    } catch (err) {
      crashed(err);
    }
  }
}

/** Each reported rule's documentation page, as its `meta.docs.url` says (plugin rules too); none when unknown. */
export async function docsUrls(
  params: EslintRequestParams,
  results: EslintResult[],
): Promise<Map<string, string>> {
  try {
    const meta = (await instance(params, false)).getRulesMetaForResults?.(results) ?? {};
    return new Map(
      Object.entries(meta).flatMap(([id, m]) => (typeof m?.docs?.url === "string" ? [[id, m.docs.url]] : [])),
    );
  } catch {
    // A rule the config no longer has (a crashed rule turned off for a file): no URLs rather than no lint.
    return new Map();
  }
}

const NO_FILES = new Set(["file-not-found", "all-files-ignored", "all-matched-files-ignored"]);

/** ESLint's "nothing matched" errors are the caller's mistake; everything else is the tool failing. */
async function lintFiles(eslint: EslintInstance, patterns: string[]): Promise<EslintResult[]> {
  try {
    return await eslint.lintFiles(patterns);
  } catch (err) {
    const template = (err as { messageTemplate?: string }).messageTemplate;
    if (template && NO_FILES.has(template))
      throw new WorkerHandlerError("invalid_input", (err as Error).message);
    throw err;
  }
}

export function report(r: EslintResult, output?: string): WireFileReport {
  const out: WireFileReport = {
    file: r.filePath,
    messages: r.messages.map(toWireMessage),
    errorCount: r.errorCount,
    warningCount: r.warningCount,
    fatal: (r.fatalErrorCount ?? 0) > 0 || r.messages.some((m) => m.fatal),
  };
  if (output !== undefined) out.output = output;
  return out;
}

/** Adds the messages' fixes and suggestions as line/column edits (only files with any carry them). */
export function withCorrections(r: EslintResult, out: WireFileReport): WireFileReport {
  if (!r.messages.some((m) => m.fix || m.suggestions?.length)) return out;
  const source = r.source ?? fs.readFileSync(r.filePath, "utf8");
  const starts = lineStarts(source);
  out.corrections = r.messages.map((m) => toWireCorrections(m, starts));
  return out;
}
