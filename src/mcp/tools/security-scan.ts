import { z } from "zod";
import { defineTool, READ_ONLY, type ToolContext } from "../../engine/tool.js";
import { ToolError } from "../../errors.js";
import { chooseScanners } from "../../adapters/tool-choice.js";
import type { ScanOutcome, ScanSummary, SecurityScanner } from "../../adapters/security-scanners.js";
import { displayPaths } from "../../findings/display-path.js";
import type { Finding } from "../../findings/model.js";
import { findingsView, issueString } from "../../findings/views.js";
import { estimateTokens } from "../../findings/budget.js";
import { LISTING_ARGS, listingFields, listingOf } from "./listing.js";
import { OUTPUT_ARG, sarifField, type SarifRunSource } from "./sarif-output.js";

const LEVEL = z.enum(["low", "medium", "high"]);

/** What a result says of each scanner of the project: ran (with its counts), or why it did not. */
interface ScannerEntry {
  name: string;
  /** Where it ran, when the path holds several projects (relative to the path's project root). */
  path?: string;
  kind: SecurityScanner["kind"];
  ran: boolean;
  command?: string;
  returncode?: number | null;
  finding_count?: number;
  /** Why it did not run (not installed, no lockfile, not run by this server yet). */
  reason?: string;
  install?: string;
  /** It ran and failed (npm audit's registry refusing, a scanner crash): its error, beside the others' findings. */
  error?: string;
  error_type?: string;
  output?: string;
}

/** The tail of a failed scanner's output kept in its entry: enough for its last error lines. */
const FAILED_OUTPUT_CHARS = 2000;

/** A scanner's failure as its entry in `scanners[]`. */
function failedEntry(scanner: SecurityScanner, err: ToolError): ScannerEntry {
  const { command, returncode, output } = err.extra as {
    command?: string;
    returncode?: number | null;
    output?: string;
  };
  return {
    name: scanner.name,
    kind: scanner.kind,
    ran: true,
    ...(command !== undefined ? { command } : {}),
    ...(returncode !== undefined ? { returncode } : {}),
    error: err.message,
    error_type: err.errorType,
    ...(output
      ? { output: output.length > FAILED_OUTPUT_CHARS ? `…${output.slice(-FAILED_OUTPUT_CHARS)}` : output }
      : {}),
  };
}

const addSummaries = (a: ScanSummary, b: ScanSummary): ScanSummary => ({
  high: a.high + b.high,
  medium: a.medium + b.medium,
  low: a.low + b.low,
  errors: a.errors + b.errors,
});

/**
 * Seed 000: a project none of whose own scanners can run because they are not installed (bandit on a Python
 * project) is `tool_not_found`, before anything runs: the scanners for every language (secrets) alone would
 * not make it a scan. The error names what would scan it and how to install it (`scanners`).
 */
function refuseWhenNotInstalled(ctx: ToolContext, target: string, picks: readonly SecurityScanner[]): void {
  const own = picks.filter((p) => p.languages !== "any" && p.scan);
  if (own.length === 0 || own.some((p) => !p.unavailable(ctx, target))) return;
  const missing = own.filter((p) => p.installed?.(ctx, target) === false);
  if (missing.length === 0) return;
  const reasons = own.map((p) => ({ name: p.name, reason: p.unavailable(ctx, target) as string }));
  throw new ToolError("tool_not_found", reasons.map((r) => r.reason).join("; "), {
    scanners: own.map((p, i) => ({
      name: p.name,
      kind: p.kind,
      ran: false,
      reason: reasons[i]?.reason,
      install: p.install,
    })),
  });
}

export const securityScanTool = () =>
  defineTool({
    name: "security_scan",
    description: "Security scan with the project's scanners (bandit, gosec, npm audit, secrets).",
    input: z.strictObject({
      path: z.string().describe("File or folder; relative to cwd"),
      severity: LEVEL.default("low").describe("Lowest severity reported"),
      confidence: LEVEL.default("low").describe("Lowest confidence reported"),
      output: OUTPUT_ARG,
      ...LISTING_ARGS,
    }),
    annotations: { title: "Security scan", ...READ_ONLY },
    paths: [{ arg: "path", kind: "any" }],
    async handler(args, ctx) {
      const choice = chooseScanners(args.path, ctx.allowlist.rootOf(args.path));
      refuseWhenNotInstalled(ctx, args.path, choice.picks);
      const display = displayPaths(args.path, ctx.allowlist.roots.effective);
      const entries: ScannerEntry[] = [];
      const ran: { scanner: SecurityScanner; outcome: ScanOutcome }[] = [];
      const failed: { scanner: SecurityScanner; error: ToolError }[] = [];
      // Each scanner where it runs: the path, or each project of its languages below it (tool-choice.ts).
      for (const { scanner, target } of choice.runs) {
        const where = target === args.path ? {} : { path: display.show(target) || "." };
        const reason = scanner.unavailable(ctx, target);
        if (reason || !scanner.scan) {
          entries.push({
            name: scanner.name,
            ...where,
            kind: scanner.kind,
            ran: false,
            reason: reason ?? `${scanner.name} is not run by this server yet`,
            install: scanner.install,
          });
          continue;
        }
        let outcome: ScanOutcome;
        try {
          outcome = await scanner.scan(ctx, {
            target,
            severity: args.severity,
            confidence: args.confidence,
          });
        } catch (err) {
          // One scanner's failure never hides the others' findings: it is an entry of its own.
          if (!(err instanceof ToolError)) throw err;
          failed.push({ scanner, error: err });
          entries.push({ ...failedEntry(scanner, err), ...where });
          continue;
        }
        ran.push({ scanner, outcome });
        entries.push({
          name: scanner.name,
          ...where,
          kind: scanner.kind,
          ran: true,
          command: outcome.command,
          returncode: outcome.returncode,
          finding_count: outcome.findings.length,
        });
      }
      const skipped = entries.filter((e) => !e.ran).map((e) => `not scanned with ${e.name}: ${e.reason}`);
      const failures = failed.map(
        (f) => `${f.scanner.name} failed (${f.error.errorType}): ${f.error.message}`,
      );
      if (ran.length === 0 && failed.length === 1 && failed[0]) throw failed[0].error;
      if (ran.length === 0 && failed.length > 1)
        throw new ToolError("tool_error", `every scanner failed: ${failures.join("; ")}`, {
          scanners: entries,
          notes: skipped,
        });
      if (ran.length === 0) {
        const notes = [
          choice.nothing
            ? `checked nothing: ${choice.nothing}`
            : `checked nothing: none of the scanners for ${choice.languages.join(", ")} could run`,
          ...skipped,
        ];
        return {
          success: true,
          // Nothing scanned is no pass: no `passed` at all, and the notes name what would scan it.
          nothing_checked: true,
          scanners: entries,
          findings: [],
          finding_count: 0,
          issues: [],
          notes,
          ...(await sarifField(ctx, args.output, display, [{ tool: "security_scan", findings: [], notes }])),
        };
      }
      // Every finding of every scanner (SARIF gets them all); the lists show what fits the budget, each
      // listed finding three times over (the scanner's own entry, the issue string, the common finding).
      const raw = new Map<Finding, unknown>();
      const all: Finding[] = [];
      for (const { outcome } of ran) {
        all.push(...outcome.findings);
        for (const [f, r] of outcome.raw) raw.set(f, r);
      }
      const view = findingsView(all, {
        display,
        fingerprints: true,
        listing: listingOf(ctx, args, {
          cost: (f) =>
            estimateTokens(f) + estimateTokens(raw.get(f)) + Math.ceil(issueString(f).length / 4) + 2,
        }),
      });
      const command = ran.map((r) => r.outcome.command).join(" && ");
      // Only the scanners for every language (secrets) ran while the project's own language scanners could
      // not: a clean result answers the secrets question, not whether the code is safe, so it is no pass.
      const codeUnscanned =
        !ran.some((r) => r.scanner.languages !== "any") && choice.picks.some((p) => p.languages !== "any");
      const notes = [
        ...choice.notes,
        ...failures.map(
          (f) => `${f}; no pass: what it scans was not scanned, the other scanners' findings are listed`,
        ),
        ...ran.flatMap((r) => r.outcome.notes),
        ...(codeUnscanned && all.length === 0
          ? [
              `no pass: only ${ran.map((r) => r.scanner.name).join(", ")} ran; none of the scanners for ${choice.languages.join(", ")} could run`,
            ]
          : []),
        ...skipped,
      ];
      return {
        success: true,
        ...(codeUnscanned && all.length === 0 && failed.length === 0
          ? { code_scanned: false }
          : { passed: all.length === 0 && failed.length === 0 }),
        command,
        scanners: entries,
        findings: view.listed.map((f) => raw.get(f)),
        finding_count: all.length,
        summary: ran.map((r) => r.outcome.summary).reduce(addSummaries),
        issues: view.issues,
        common_findings: view.listed,
        unscanned_files: ran.flatMap((r) => r.outcome.unscanned),
        returncode:
          ran.length === 1 && failed.length === 0
            ? ran[0]?.outcome.returncode
            : Math.max(
                ...ran.map((r) => r.outcome.returncode ?? 0),
                ...failed.map((f) => (f.error.extra.returncode as number | null | undefined) ?? 1),
              ),
        truncated: ran.some((r) => r.outcome.truncated) || view.capped,
        ...listingFields(ran.length === 1 ? (ran[0]?.scanner.name ?? "") : "security_scan", view, {
          lists: ["findings", "issues", "common_findings"],
        }),
        notes,
        ...(await sarifField(ctx, args.output, display, [
          ...ran.map(({ scanner, outcome }): SarifRunSource => ({
            tool: scanner.name,
            version: () => Promise.resolve(outcome.version),
            findings: outcome.findings,
            notes: [...outcome.notes],
            command: outcome.command,
          })),
          ...failed.map(({ scanner, error }): SarifRunSource => ({
            tool: scanner.name,
            findings: [],
            executionSuccessful: false,
            notes: [error.message],
            command: error.extra.command as string | undefined,
          })),
        ])),
      };
    },
  });
