/**
 * What a project lints itself: the targets of the `eslint` command in its package.json `lint` script, when
 * they are plain paths (`eslint .`, `eslint src test --max-warnings 0`). Pure; the caller reads the file.
 */

/** ESLint options that take a value (the next word is not a target). */
const OPTIONS_WITH_VALUE = new Set([
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

const PLAIN_PATH = /^[\w@./+-]+$/;
const GLOB_CHARS = /[*?[\]{}!]/;

/**
 * The targets of the first `eslint` command in `script` (after `npx`/`pnpm exec`/`yarn` and env
 * assignments), `["."]` when it names none (ESLint's flat-config default), or undefined when there is no
 * eslint command or a target is not a plain path (a glob, a quoted word, a variable).
 */
export function lintScriptTargets(script: string): string[] | undefined {
  for (const command of script.split(/&&|\|\||[;|]/)) {
    const words = command.trim().split(/\s+/).filter(Boolean);
    while (
      words.length &&
      (/^\w+=/.test(words[0] as string) ||
        ["npx", "exec", "pnpm", "yarn", "bunx"].includes(words[0] as string))
    )
      words.shift();
    const head = words.shift();
    if (!head || !/(^|\/)eslint$/.test(head)) continue;
    const targets: string[] = [];
    for (let i = 0; i < words.length; i++) {
      const w = words[i] as string;
      if (w === "--") continue;
      if (w.startsWith("-")) {
        if (OPTIONS_WITH_VALUE.has(w)) i++;
        continue;
      }
      if (!PLAIN_PATH.test(w) || GLOB_CHARS.test(w) || w.split("/").includes("..")) return undefined;
      targets.push(w);
    }
    return targets.length ? targets : ["."];
  }
  return undefined;
}
