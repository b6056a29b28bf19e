/** black: pure argv builder and output parser. */
import { registerExternalTool } from "../registry.js";

registerExternalTool({ name: "black", program: "black", versionArgs: ["--version"] });

/** `configArgs` comes from blackConfigArgs (`--config F`): black never picks a config above the root. */
export function blackArgs(
  targets: string | readonly string[],
  opts: { check?: boolean; diff?: boolean; configArgs: string[] },
): string[] {
  return [
    ...(opts.check ? ["--check"] : []),
    ...(opts.diff ? ["--diff"] : []),
    ...opts.configArgs,
    "--",
    ...(typeof targets === "string" ? [targets] : targets),
  ];
}

/** Files black would reformat (`would reformat X`) or did (`reformatted X`), and `--- X\t...` diff headers. */
export function parseBlackUnformatted(output: string): string[] {
  const files = new Set<string>();
  const lines = output.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    let m = /^(?:would reformat|reformatted) (.+)$/.exec(line);
    if (m) files.add((m[1] as string).trim());
    m = /^--- (.+?)\t/.exec(line);
    if (m && (lines[i + 1] ?? "").startsWith("+++ ")) files.add(m[1] as string);
  }
  return [...files];
}

/** black's exit code 123 means an internal error such as a file it cannot parse. */
export const BLACK_INTERNAL_ERROR = 123;
