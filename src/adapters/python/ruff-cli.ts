/** ruff on the command line: pure argv builders and output parsers. */
import path from "node:path";
import type { Finding, TextEdit } from "../../findings/model.js";
import { registerExternalTool } from "../registry.js";

registerExternalTool({ name: "ruff", program: "ruff", versionArgs: ["--version"] });

/** What every ruff CLI run adds: where its config comes from, and virtualenvs it does not know by name. */
export interface RuffCliScope {
  /** `--config F`, `--isolated` or nothing (see ruffConfigArgs). */
  configArgs: string[];
  /** Absolute folders to exclude besides ruff's own excludes. */
  extendExclude?: readonly string[];
  /**
   * Apply the excludes (also `lint.exclude`, `format.exclude`) to files named on the command line: the
   * result cache runs ruff on the files it lacks, which a run on the folder would have excluded or not.
   */
  forceExclude?: boolean;
}

function scopeArgs(scope: RuffCliScope): string[] {
  return [
    ...scope.configArgs,
    ...(scope.extendExclude ?? []).flatMap((d) => ["--extend-exclude", d]),
    ...(scope.forceExclude ? ["--force-exclude"] : []),
  ];
}

/** `ruff check --show-files`: the files ruff would check (the result cache's file list). */
export function ruffShowFilesArgs(targets: readonly string[], scope: RuffCliScope): string[] {
  return ["check", "--show-files", "--no-cache", ...scopeArgs(scope), "--", ...targets];
}

/** `ruff check --no-fix`: lint is read-only even when the project's config says `fix = true`. */
export function ruffCheckArgs(targets: readonly string[], scope: RuffCliScope): string[] {
  return [
    "check",
    "--no-fix",
    "--no-cache",
    "--output-format",
    "json-lines",
    ...scopeArgs(scope),
    "--",
    ...targets,
  ];
}

export function ruffFormatArgs(
  target: string | readonly string[],
  opts: { check?: boolean; diff?: boolean } & RuffCliScope,
): string[] {
  return [
    "format",
    "--no-cache",
    ...(opts.check ? ["--check"] : []),
    ...(opts.diff ? ["--diff"] : []),
    ...scopeArgs(opts),
    "--",
    ...(typeof target === "string" ? [target] : target),
  ];
}

/**
 * Files `ruff format --check` would change. Understands the old `Would reformat: X` lines, the newer
 * `unformatted: ...` diagnostics followed by ` --> X:line:col`, and `--- X` diff headers.
 */
export function parseRuffUnformatted(output: string): string[] {
  const files = new Set<string>();
  const lines = output.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    let m = /^Would reformat: (.+)$/.exec(line);
    if (m) files.add((m[1] as string).trim());
    if (line.startsWith("unformatted:")) {
      m = /^\s*-->\s+(.+?):\d+:\d+\s*$/.exec(lines[i + 1] ?? "");
      if (m) files.add(m[1] as string);
    }
    m = /^--- (.+?)(?:\t.*)?$/.exec(line);
    if (m && (lines[i + 1] ?? "").startsWith("+++ ")) files.add(m[1] as string);
  }
  return [...files];
}

interface RuffPosition {
  row: number;
  column: number;
}

/** One line of `ruff check --output-format json-lines` (the fields we read). */
interface RuffJsonDiagnostic {
  code: string | null;
  message: string;
  filename: string;
  location: RuffPosition;
  end_location?: RuffPosition;
  url?: string | null;
  severity?: string;
  fix?: {
    applicability?: string;
    message?: string | null;
    edits: { content: string | null; location: RuffPosition; end_location: RuffPosition }[];
  } | null;
}

/** ruff's fix edits in the model: 1-based rows and code-point columns, as ruff gives them. */
export function ruffEdits(
  edits: readonly { content: string | null; location: RuffPosition; end_location: RuffPosition }[],
): TextEdit[] {
  return edits.map((e) => ({
    line: e.location.row,
    column: e.location.column,
    end_line: e.end_location.row,
    end_column: e.end_location.column,
    text: e.content ?? "",
  }));
}

/**
 * One json-lines diagnostic as a finding (undefined for a line that is not one). Its fix is safe when
 * ruff's applicability is "safe", the only kind `ruff check --fix` applies without `--unsafe-fixes`.
 */
export function parseRuffJsonLine(line: string, cwd: string): Finding | undefined {
  if (!line.startsWith("{")) return undefined;
  let d: RuffJsonDiagnostic;
  try {
    d = JSON.parse(line) as RuffJsonDiagnostic;
  } catch {
    return undefined;
  }
  if (typeof d.filename !== "string" || !d.location) return undefined;
  const finding: Finding = {
    tool: "ruff",
    file: path.resolve(cwd, d.filename),
    line: d.location.row,
    column: d.location.column,
    end_line: d.end_location?.row,
    end_column: d.end_location?.column,
    rule_id: d.code ?? "invalid-syntax",
    severity: d.severity === "warning" ? "warning" : "error",
    level: d.severity,
    message: d.message,
    correctable: Boolean(d.fix?.edits.length),
    docs_url: d.url ?? undefined,
  };
  if (d.fix?.edits.length)
    finding.correction = {
      safe: d.fix.applicability === "safe",
      description: d.fix.message ?? undefined,
      edits: ruffEdits(d.fix.edits),
    };
  return finding;
}
