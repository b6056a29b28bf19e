/** ruff on the command line: pure argv builders and output parsers. */
import { registerExternalTool } from "../registry.js";

registerExternalTool({ name: "ruff", program: "ruff", versionArgs: ["--version"] });

export function ruffCheckArgs(target: string, config?: string): string[] {
  return [
    "check",
    "--no-cache",
    "--output-format",
    "concise",
    ...(config ? ["--config", config] : []),
    "--",
    target,
  ];
}

export function ruffFormatArgs(
  target: string,
  opts: { check?: boolean; diff?: boolean; config?: string } = {},
): string[] {
  return [
    "format",
    "--no-cache",
    ...(opts.check ? ["--check"] : []),
    ...(opts.diff ? ["--diff"] : []),
    ...(opts.config ? ["--config", opts.config] : []),
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
