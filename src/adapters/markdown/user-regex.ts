/**
 * Regular expressions written by users (ignore patterns, link rewrites) run in RE2JS, a linear-time
 * engine: no pattern can make matching take exponential time and stall the server (ReDoS). RE2 syntax
 * is JavaScript's minus backreferences and lookaround, which are refused with a clear message.
 */
import { RE2JS } from "re2js";
import { ToolError } from "../../errors.js";

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** A compiled user pattern; every operation runs in time linear in the input. */
export interface UserRegex {
  readonly source: string;
  test(text: string): boolean;
  /** Replaces every match; `$1`, `${name}` name groups, `$$` is a dollar sign. */
  replaceAll(text: string, replacement: string): string;
}

function unsupportedHint(pattern: string): string {
  if (/\\[1-9]/.test(pattern))
    return " (backreferences are not supported: patterns run in a linear-time engine)";
  if (/\(\?<?[=!]/.test(pattern))
    return " (lookahead and lookbehind are not supported: patterns run in a linear-time engine)";
  return "";
}

/** Compiles one user pattern; `name` (e.g. `ignore_patterns[2]`) is used in the invalid_input message. */
export function compileUserRegex(pattern: string, name: string): UserRegex {
  if (CONTROL_CHARACTERS.test(pattern))
    throw new ToolError("invalid_input", `${name} contains control characters`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (err) {
    throw new ToolError(
      "invalid_input",
      `${name} is not a valid regular expression (RE2 syntax): ${(err as Error).message}${unsupportedHint(pattern)}`,
    );
  }
  return {
    source: pattern,
    test: (text) => re.matcher(text).find(),
    replaceAll: (text, replacement) => re.matcher(text).replaceAll(replacement),
  };
}

/** Refuses a replacement naming a group the pattern does not have (RE2JS would leave it as text). */
export function checkReplacement(pattern: string, replacement: string, name: string): void {
  const re = RE2JS.compile(pattern);
  const groups = re.groupCount();
  const named = re.namedGroups();
  for (const m of replacement.matchAll(/\$(?:(\d+)|\{(\w+)\}|\$)/g)) {
    const [, index, group] = m;
    if (index !== undefined && Number(index) > groups)
      throw new ToolError(
        "invalid_input",
        `${name} refers to group $${index}, but the pattern has ${groups}`,
      );
    if (group !== undefined && !(group in named))
      throw new ToolError(
        "invalid_input",
        `${name} refers to group \${${group}}, which the pattern does not name`,
      );
  }
}
