/** pyright, bundled from npm and run with this Node: pure argv builder and `--outputjson` parser. */
import { createRequire } from "node:module";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import type { Finding, Severity } from "../../findings/model.js";
import { registerExternalTool } from "../registry.js";
import type { TypeCheckOutcome, TypeCheckRequest } from "../type-checkers.js";
import { findPythonEnvironment } from "./venv.js";
import { checkerFailed, leftOutNote, nestedOwnRoots } from "./type-check-common.js";
import { inOwnRoot } from "../type-check-units.js";
import { planCheck, pyrightConfig } from "./checker-config.js";
import { refuseLinksInArgs } from "../../paths/outside-links.js";
import { warmPyright } from "./pyright-warm.js";
import { BoundedText, MAX_REPORT_BYTES } from "../../exec/bounded-text.js";

/** The bundled CLI script (the `pyright` package's index.js). */
export function pyrightCli(): string {
  return createRequire(import.meta.url).resolve("pyright");
}

registerExternalTool({
  name: "pyright",
  program: process.execPath,
  versionArgs: [pyrightCli(), "--version"],
  parseVersion: (out) => /pyright (\d+\.\d+\.\d+)/.exec(out)?.[1],
});

/**
 * `pyright --outputjson [--warnings] [--project config] [--pythonpath python] target`. pyright has no
 * strict switch on its command line: `strict` makes warnings fail the run (`--warnings`).
 */
export function pyrightArgs(
  targets: readonly string[],
  strict: boolean,
  config?: string,
  pythonPath?: string,
): string[] {
  return [
    "--outputjson",
    ...(strict ? ["--warnings"] : []),
    ...(config ? ["--project", config] : []),
    ...(pythonPath ? ["--pythonpath", pythonPath] : []),
    ...targets,
  ];
}

interface PyrightDiagnostic {
  file?: string;
  severity?: string;
  message?: string;
  rule?: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
}

const SEVERITY: Record<string, Severity> = { error: "error", warning: "warning", information: "info" };

/** Parses `--outputjson`; undefined when the output is not pyright's report (a fatal error). */
export function parsePyrightJson(output: string): Finding[] | undefined {
  let report: { generalDiagnostics?: PyrightDiagnostic[] };
  try {
    report = JSON.parse(output) as typeof report;
  } catch {
    return undefined;
  }
  if (!Array.isArray(report.generalDiagnostics)) return undefined;
  return report.generalDiagnostics.map((d) => ({
    tool: "pyright",
    file: d.file ?? "",
    // pyright ranges are 0-based.
    line: d.range ? d.range.start.line + 1 : 0,
    column: d.range ? d.range.start.character + 1 : 0,
    end_line: d.range ? d.range.end.line + 1 : undefined,
    end_column: d.range ? d.range.end.character + 1 : undefined,
    rule_id: d.rule ?? "",
    severity: SEVERITY[d.severity ?? "error"] ?? "error",
    message: d.message ?? "",
    docs_url: d.rule
      ? `https://microsoft.github.io/pyright/#/configuration?id=${d.rule.toLowerCase()}`
      : undefined,
  }));
}

export async function pyrightCheck(ctx: ToolContext, req: TypeCheckRequest): Promise<TypeCheckOutcome> {
  const root = ctx.allowlist.rootOf(req.target) ?? req.target;
  const config = pyrightConfig(req.target, root, req.config);
  const plan = planCheck(req.target, config, "include");
  const venv = findPythonEnvironment(plan.cwd, root);
  const python = venv ? path.join(venv.binDir, "python") : undefined;
  const args = pyrightArgs(plan.targets, req.strict, config?.file, python);
  const command = displayCommand("pyright", args);
  const notes = [`pyright ${pyrightVersion()} bundled with the server, run with Node ${process.version}`];
  notes.push(
    python
      ? `imports resolved with the project's virtualenv interpreter ${python} (${venv?.origin})`
      : "no project virtualenv found: imports resolved with the python on PATH",
  );
  if (plan.note) notes.push(plan.note);
  const nested = nestedOwnRoots(ctx, req.target);
  notes.push(...leftOutNote(req.target, nested));
  if (req.strict)
    notes.push(
      'strict: warnings fail the run (--warnings); pyright\'s strict rule set is chosen in its config (typeCheckingMode = "strict")',
    );
  // The language server gets no process per call, so the engine's link check is made here (and on its folder).
  refuseLinksInArgs([...args, plan.cwd], ctx.allowlist);
  const warm = await warmPyright(ctx, {
    root,
    cwd: plan.cwd,
    targets: plan.targets,
    config: config?.file,
    pythonPath: python,
    strict: req.strict,
    version: pyrightVersion(),
    sourceDirs: plan.sourceDirs,
  });
  notes.push(warm.note);
  // The JSON report is read whole (only the `output` shown is capped), up to a bound on memory.
  const report = new BoundedText(MAX_REPORT_BYTES);
  const run =
    warm.kind === "warm"
      ? { returncode: warm.returncode, stdout: warm.report, stderr: "", truncated: false }
      : await ctx.run({
          program: process.execPath,
          args: [pyrightCli(), ...args],
          cwd: plan.cwd,
          onStdoutData: (c) => report.push(c),
        });
  if (report.overflowed)
    throw new ToolError(
      "tool_error",
      `pyright's report is larger than ${MAX_REPORT_BYTES >> 20} MiB: not read`,
      {
        command,
      },
    );
  const reported = parsePyrightJson(warm.kind === "warm" ? run.stdout : report.text());
  // pyright has no exclude on its command line: a nested project's diagnostics are dropped here.
  const all = nested.length ? reported?.filter((f) => !inOwnRoot(nested, f.file)) : reported;
  const findings = all && (req.shown ? all.filter((f) => req.shown?.(f.file)) : all);
  // 0: clean, 1: errors (or warnings with --warnings), 2: fatal, 3: config error, 4: bad command line.
  if (!findings || (run.returncode !== 0 && run.returncode !== 1))
    throw checkerFailed("pyright", command, run, "failed without a usable report");
  if (warm.kind === "cold") warm.prime?.();
  return {
    findings,
    totalInProject: all?.length,
    command,
    returncode: run.returncode,
    output: run.stdout,
    truncated: run.truncated,
    notes,
    // Its exit code counts a nested project's errors too: those left out, the rest decide.
    passed: run.returncode === 0 || (all !== reported && !all?.some((f) => f.severity === "error")),
    viewWithin: plan.viewWithin,
  };
}

function pyrightVersion(): string {
  const pkg = createRequire(import.meta.url)("pyright/package.json") as { version: string };
  return pkg.version;
}
