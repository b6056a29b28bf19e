/**
 * What a project lints and formats itself: the targets of the `eslint` command in its package.json `lint`
 * script, and of the `prettier` command in its scripts, when they are plain paths (`eslint .`,
 * `eslint src test --max-warnings 0`, `prettier -c src test`). Pure; the caller reads the file.
 */

/** ESLint options that take a value (the next word is not a target). */
const ESLINT_OPTIONS_WITH_VALUE = new Set([
  "-c",
  "--config",
  "--ext",
  "--rulesdir",
  "-f",
  "--format",
  "-o",
  "--output-file",
  "--ignore-path",
  "--ignore-pattern",
  "--max-warnings",
  "--cache-location",
  "--cache-strategy",
  "--parser",
  "--parser-options",
  "--plugin",
  "--rule",
  "--env",
  "--global",
  "--resolve-plugins-relative-to",
  "--report-unused-disable-directives-severity",
  "--stats",
  "--flag",
  "--concurrency",
  "--inspect-config",
]);

/** Prettier options that take a value. */
const PRETTIER_OPTIONS_WITH_VALUE = new Set([
  "--config",
  "--ignore-path",
  "--plugin",
  "--parser",
  "--log-level",
  "--cache-location",
  "--cache-strategy",
  "--config-precedence",
  "--end-of-line",
  "--print-width",
  "--tab-width",
  "--trailing-comma",
  "--prose-wrap",
  "--arrow-parens",
  "--html-whitespace-sensitivity",
  "--embedded-language-formatting",
  "--quote-props",
  "--object-wrap",
  "--experimental-operator-position",
  "--stdin-filepath",
  "--cursor-offset",
  "--range-start",
  "--range-end",
]);

const PLAIN_PATH = /^[\w@./+-]+$/;
const GLOB_CHARS = /[*?[\]{}!]/;

/**
 * The targets of the first `eslint` command in `script` (after `npx`/`pnpm exec`/`yarn` and env
 * assignments), `["."]` when it names none (ESLint's flat-config default), or undefined when there is no
 * eslint command or a target is not a plain path (a glob, a quoted word, a variable).
 */
export function lintScriptTargets(script: string): string[] | undefined {
  return commandTargets(script, "eslint", ESLINT_OPTIONS_WITH_VALUE, ["."]);
}

/**
 * The targets of the first `prettier` command in `script`, or undefined when there is none, it names no
 * target, or one is not a plain path (a glob leaves the scope to the whole project).
 */
export function prettierScriptTargets(script: string): string[] | undefined {
  return commandTargets(script, "prettier", PRETTIER_OPTIONS_WITH_VALUE, undefined);
}

/** The scripts a project formats itself with, in the order they are looked at for a prettier command. */
export const FORMAT_SCRIPT_NAMES = [
  "format:check",
  "check-format",
  "format-check",
  "prettier:check",
  "lint:prettier",
  "lint:format",
  "format",
  "prettier",
  "lint",
];

function commandTargets(
  script: string,
  program: string,
  optionsWithValue: ReadonlySet<string>,
  none: string[] | undefined,
): string[] | undefined {
  const head = new RegExp(`(^|/)${program}$`);
  for (const command of script.split(/&&|\|\||[;|]/)) {
    const words = command.trim().split(/\s+/).filter(Boolean);
    while (
      words.length &&
      (/^\w+=/.test(words[0] as string) ||
        ["npx", "exec", "pnpm", "yarn", "bunx"].includes(words[0] as string))
    )
      words.shift();
    const word = words.shift();
    if (!word || !head.test(word)) continue;
    const targets: string[] = [];
    for (let i = 0; i < words.length; i++) {
      const w = words[i] as string;
      if (w === "--") continue;
      if (w.startsWith("-")) {
        if (optionsWithValue.has(w)) i++;
        continue;
      }
      if (!PLAIN_PATH.test(w) || GLOB_CHARS.test(w) || w.split("/").includes("..")) return undefined;
      targets.push(w);
    }
    return targets.length ? targets : none;
  }
  return undefined;
}
