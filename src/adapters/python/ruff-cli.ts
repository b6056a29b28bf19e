/** ruff on the command line: pure argv builders and output parsers. */
import { registerExternalTool } from "../registry.js";

registerExternalTool({ name: "ruff", program: "ruff", versionArgs: ["--version"] });

/** What every ruff CLI run adds: where its config comes from, and virtualenvs it does not know by name. */
export interface RuffCliScope {
  /** `--config F`, `--isolated` or nothing (see ruffConfigArgs). */
  configArgs: string[];
  /** Absolute folders to exclude besides ruff's own excludes. */
  extendExclude?: readonly string[];
}

function scopeArgs(scope: RuffCliScope): string[] {
  return [...scope.configArgs, ...(scope.extendExclude ?? []).flatMap((d) => ["--extend-exclude", d])];
}

/** `ruff check --no-fix`: lint is read-only even when the project's config says `fix = true`. */
export function ruffCheckArgs(targets: readonly string[], scope: RuffCliScope): string[] {
  return [
    "check",
    "--no-fix",
    "--no-cache",
    "--output-format",
    "concise",
    ...scopeArgs(scope),
    "--",
    ...targets,
  ];
}

export function ruffFormatArgs(
  target: string,
  opts: { check?: boolean; diff?: boolean } & RuffCliScope,
): string[] {
  return [
    "format",
    "--no-cache",
    ...(opts.check ? ["--check"] : []),
    ...(opts.diff ? ["--diff"] : []),
    ...scopeArgs(opts),
    "--",
    target,
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
