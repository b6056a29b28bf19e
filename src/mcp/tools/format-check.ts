import { z } from "zod";
import { BY_LANGUAGE_DOC, CONFIG_DOC, PATH_DOC } from "./arg-docs.js";
import { ToolError } from "../../errors.js";
import { cacheFields } from "../../cache/service.js";
import { defineTool, READ_ONLY, PATH_AND_CONFIG, type ToolContext } from "../../engine/tool.js";
import { displayPaths, rebaseDiff, showFromCwd, type DisplayPaths } from "../../findings/display-path.js";
import { formatFindings } from "../../findings/format-findings.js";
import type { Finding } from "../../findings/model.js";
import { findingsView } from "../../findings/views.js";
import { listEntries, pageFields, PAGING_ARGS } from "./listing.js";
import { OUTPUT_ARG, sarifField, type SarifRunSource } from "./sarif-output.js";
import {
  findFormatter,
  formatterLanguages,
  formatterNames,
  formattersFor,
  type FormatCheckOutcome,
  type FormatterAdapter,
} from "../../adapters/formatters.js";
import { hasFilesOf, projectLanguages, type ProjectLanguage } from "../../adapters/project-languages.js";
import { chooseFormatters, placeFormatter } from "../../adapters/tool-choice.js";

/**
 * The arguments that choose a formatter, the same for format_check and autoformat: the path, and a language
 * or formatter among those registered when the tool is built (else the project's, tool-choice.ts).
 */
export function formatterChoiceArgs() {
  return {
    path: z.string().describe(PATH_DOC),
    language: z.enum(formatterLanguages()).optional().describe(BY_LANGUAGE_DOC),
    formatter: z.enum(formatterNames()).optional().describe(BY_LANGUAGE_DOC),
  };
}

/** The formatter for a request, or invalid_input naming the formatters that language has. */
export function pickFormatter(language: string, formatter: string | undefined) {
  const adapter = findFormatter(language, formatter);
  if (!adapter)
    throw new ToolError(
      "invalid_input",
      `formatter ${formatter} does not format ${language}; use one of: ${formattersFor(language).join(", ")}`,
    );
  return adapter;
}

/** The SARIF run of one format check: one finding per file that would change, at its first changed line. */
async function formatSarifRun(
  ctx: ToolContext,
  adapter: FormatterAdapter,
  args: { path: string; diff: boolean; config?: string; all?: boolean },
  outcome: FormatCheckOutcome,
  display: DisplayPaths,
): Promise<SarifRunSource> {
  // The first changed lines: known to the formatter's run, else from the diff (the one asked for, else a
  // second read-only check, which re-formats the whole target).
  const known = outcome.first_lines;
  const diff =
    outcome.formatted || args.diff || known
      ? outcome.output
      : (await adapter.check(ctx, { target: args.path, diff: true, config: args.config, all: args.all }))
          .output;
  const findings = formatFindings(adapter.formatter, outcome.unformatted_files, diff, ctx.config.cwd, known);
  const view = findingsView(findings, { display, fingerprints: true });
  return {
    tool: adapter.formatter,
    ...(outcome.version && { version: () => Promise.resolve(outcome.version) }),
    findings: view.all,
    notes: outcome.notes,
    command: outcome.command,
  };
}

export const formatCheckTool = () =>
  defineTool({
    name: "format_check",
    description: "Check formatting without changing files.",
    input: z.strictObject({
      ...formatterChoiceArgs(),
      diff: z.boolean().default(false).describe("Put the diff in output"),
      config: z.string().optional().describe(CONFIG_DOC),
      output: OUTPUT_ARG,
      ...PAGING_ARGS,
    }),
    annotations: { title: "Check formatting", ...READ_ONLY },
    paths: PATH_AND_CONFIG,
    async handler(args, ctx) {
      const { pairs, notes } = formatPairs(
        args.path,
        ctx.allowlist.rootOf(args.path),
        args.language,
        args.formatter,
      );
      const unformatted: string[] = [];
      // The same files as findings (one each), which list unformatted_files within the budget.
      const findings: Finding[] = [];
      const commands: string[] = [];
      const outputs: string[] = [];
      let checked = 0;
      let returncode: number | null | undefined;
      let truncated = false;
      let cache: { cached: number; total: number; uncached?: string } | undefined;
      const display = displayPaths(args.path, ctx.allowlist.roots.effective);
      const sarifRuns: SarifRunSource[] = [];
      for (const { language, formatter, all, target = args.path } of pairs) {
        const adapter = pickFormatter(language, formatter);
        if (!hasFilesOf(target, language as ProjectLanguage)) {
          notes.push(`checked nothing with ${adapter.formatter}: no ${language} files under ${target}`);
          continue;
        }
        const outcome = await adapter.check(ctx, {
          target,
          diff: args.diff,
          config: args.config,
          all,
        });
        checked++;
        // Loops, not push(...spread): a project can have more files than a call has room for arguments.
        for (const f of outcome.unformatted_files) unformatted.push(showFromCwd(display, ctx.config.cwd, f));
        for (const f of formatFindings(adapter.formatter, outcome.unformatted_files, "", ctx.config.cwd))
          findings.push(f);
        commands.push(outcome.command);
        if (outcome.output)
          outputs.push(args.diff ? rebaseDiff(outcome.output, ctx.config.cwd, display) : outcome.output);
        if (outcome.returncode !== undefined) returncode = Math.max(returncode ?? 0, outcome.returncode ?? 0);
        truncated ||= outcome.truncated === true;
        if (outcome.cache)
          cache = {
            cached: (cache?.cached ?? 0) + outcome.cache.cached,
            total: (cache?.total ?? 0) + outcome.cache.total,
            uncached: cache?.uncached ?? outcome.cache.uncached,
          };
        notes.push(...outcome.notes);
        if (args.output === "sarif")
          sarifRuns.push(
            await formatSarifRun(ctx, adapter, { ...args, path: target, all }, outcome, display),
          );
      }
      const files = listEntries(ctx, args, unformatted, findings, { display });
      return {
        success: true,
        // Nothing checked is no verdict: no `formatted` at all, and a note says why.
        formatted: checked === 0 ? undefined : unformatted.length === 0,
        nothing_checked: checked === 0 ? true : undefined,
        command: commands.join(" && "),
        unformatted_files: files.items,
        unformatted_count: unformatted.length,
        summary_text: formatSummary(commands, checked, unformatted.length),
        returncode,
        ...cacheFields(cache),
        output: outputs.length ? outputs.join("\n") : undefined,
        truncated: truncated || files.view.capped,
        ...pageFields(files.view, { lists: ["unformatted_files"] }),
        notes: [...new Set(notes)],
        ...(await sarifField(ctx, args.output, display, sarifRuns)),
      };
    },
  });

/** One line to quote: "ruff format: 2 files would be reformatted". */
function formatSummary(commands: readonly string[], checked: number, unformatted: number): string {
  // One formatter run per language (prettier for JavaScript and for TypeScript) is named once.
  const names = commands.map((c) => c.split(" --")[0]?.split(" -")[0] ?? c);
  const tools = [...new Set(names)].join(", ") || "format_check";
  if (checked === 0) return `${tools}: nothing checked`;
  if (unformatted === 0) return `${tools}: every file is formatted`;
  return `${tools}: ${unformatted} file${unformatted === 1 ? "" : "s"} would be reformatted`;
}

/**
 * The (language, formatter) pairs a format check covers: the language asked for (its project formatter, or
 * `formatter`); else the language `formatter` formats (the first the project has); else each language of the
 * project with its formatter, as tool-choice.ts decides (Prettier only where the project uses it).
 */
function formatPairs(
  target: string,
  root: string | undefined,
  language: string | undefined,
  formatter: string | undefined,
): { pairs: FormatPair[]; notes: string[] } {
  const scoped = projectScope(formatPairsOf(target, root, language, formatter), language);
  return scoped;
}

interface FormatPair {
  language: string;
  formatter?: string;
  /** Where it runs: a project below the call's path when that holds several (tool-choice.ts). */
  target?: string;
  /** The formatter's whole scope (every kind of file it formats), not the language's files. */
  all?: boolean;
}

/**
 * Without a language, a formatter of several languages (Prettier) runs once over the project's scope: all
 * it formats there, as the project's `prettier --check .` (not once per language, each seeing part).
 */
function projectScope(
  found: { pairs: FormatPair[]; notes: string[] },
  language: string | undefined,
): { pairs: FormatPair[]; notes: string[] } {
  if (language) return found;
  const pairs: FormatPair[] = [];
  for (const p of found.pairs)
    if (p.formatter !== "prettier") pairs.push(p);
    else if (!pairs.some((q) => q.formatter === "prettier" && q.target === p.target))
      pairs.push({ ...p, all: true });
  return { pairs, notes: found.notes };
}

function formatPairsOf(
  target: string,
  root: string | undefined,
  language: string | undefined,
  formatter: string | undefined,
): { pairs: FormatPair[]; notes: string[] } {
  if (language) {
    const placed = placeFormatter(language as ProjectLanguage, formatter, target, root);
    return { pairs: placed.picks, notes: placed.notes };
  }
  const registered = formatterLanguages() as string[];
  if (formatter) {
    const detected = projectLanguages(target).filter((l) => registered.includes(l));
    const formats = registered.filter((l) => formattersFor(l).includes(formatter));
    const own = detected.filter((l) => formats.includes(l));
    const placed = (own.length ? own : formats.slice(0, 1)).map((l) =>
      placeFormatter(l as ProjectLanguage, formatter, target, root),
    );
    return { pairs: placed.flatMap((p) => p.picks), notes: placed.flatMap((p) => p.notes) };
  }
  const choice = chooseFormatters(target, root);
  if (choice.picks.length === 0)
    return {
      pairs: [],
      notes: [...choice.notes, `${choice.nothing} under ${target}: nothing was checked`],
    };
  return {
    pairs: choice.picks.map((p) => ({ language: p.language, formatter: p.name, target: p.target })),
    notes: [...choice.notes],
  };
}
