/**
 * The shell text `just RECIPE…` runs, read from the justfile: each named recipe (the first one when none is
 * named) with its dependencies, its lines with `{{…}}` interpolations left as shell variables only known when
 * the line runs, and every backtick (it runs when the justfile is evaluated). A shebang recipe is one script
 * for its interpreter: a shell's is walked, another's is a reason (so is `set shell` to something else). Pure.
 */

export interface JustRun {
  file?: string;
  dir?: string;
  /** Words after the options: recipe names and their arguments. */
  words: string[];
}

const VALUE_OPTIONS = new Set([
  "-f",
  "--justfile",
  "-d",
  "--working-directory",
  "--set",
  "--shell",
  "--shell-arg",
  "--dotenv-filename",
  "--dotenv-path",
  "--color",
  "--chooser",
  "--command-color",
  "--list-heading",
  "--list-prefix",
  "-c",
  "--command",
]);
/** Options after which just runs no recipe. */
const NO_RUN =
  /^(-l|--list|--summary|--dump|--evaluate|--show|-s|--variables|--help|-h|--version|-V|--fmt|--init|--edit|-e|--completions|--groups|--choose|--dry-run|-n)$/;
const SHELLS = /(^|\/)(sh|bash|dash|zsh)$/;

/** The justfile, folder and words of a just command line, undefined when it runs nothing, or a reason. */
export function justRun(argv: string[], dynamic: boolean[]): JustRun | { why: string } | undefined {
  const out: JustRun = { words: [] };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (dynamic[i]) return { why: `just is given ${a}, only known when the line runs` };
    if (out.words.length === 0 && a.startsWith("-")) {
      if (NO_RUN.test(a)) return undefined;
      if (
        a === "--shell" ||
        a === "--shell-arg" ||
        a === "-c" ||
        a === "--command" ||
        a.startsWith("--shell=")
      )
        return { why: `just ${a} changes what runs the recipes` };
      const eq = /^(--justfile|--working-directory)=(.*)$/.exec(a);
      if (eq) {
        if (eq[1] === "--justfile") out.file = eq[2];
        else out.dir = eq[2];
      } else if (VALUE_OPTIONS.has(a)) {
        const v = argv[++i];
        if (dynamic[i]) return { why: `just ${a} is given a value only known when the line runs` };
        if (a === "-f" || a === "--justfile") out.file = v;
        if (a === "-d" || a === "--working-directory") out.dir = v;
        if (a === "--set") i++;
      }
      continue;
    }
    out.words.push(a);
  }
  return out;
}

interface Recipe {
  name: string;
  deps: string[];
  body: string[];
}

/** The scripts (each a shell text) the words run, or a reason. */
export function justScripts(text: string, words: string[]): { scripts: string[] } | { why: string } {
  const recipes = new Map<string, Recipe>();
  const backticks: string[] = [];
  let first: string | undefined;
  let current: Recipe | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "");
    if (current && (/^[ \t]/.test(line) || line.trim() === "")) {
      current.body.push(line);
      continue;
    }
    current = undefined;
    const code = line.trim();
    if (code === "" || code.startsWith("#") || code.startsWith("[")) continue;
    for (const m of code.matchAll(/`([^`]*)`/g)) backticks.push(m[1] as string);
    if (/^set\s+(shell|windows-shell|script-interpreter)\b/.test(code)) {
      if (!/\[\s*["'](sh|bash|dash|zsh)["']/.test(code))
        return { why: `the justfile runs its recipes with another program (${code})` };
      continue;
    }
    if (/^(set|export|alias|import|mod)\b/.test(code) || /^[A-Za-z_][\w-]*\s*:=/.test(code)) {
      if (/^(import|mod)\b/.test(code)) return { why: `the justfile reads another file (${code})` };
      continue;
    }
    const header = /^@?([A-Za-z_][\w-]*)([^:]*):(?!=)(.*)$/.exec(code);
    if (!header) continue;
    const deps = (header[3] as string)
      .replace(/#.*$/, "")
      .replace(/&&/g, " ")
      .replace(/\([^)]*\)/g, (m) => m.slice(1, -1).trim().split(/\s+/)[0] ?? "")
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    current = { name: header[1] as string, deps, body: [] };
    recipes.set(current.name, current);
    first ??= current.name;
  }
  const wanted = words.filter((w) => recipes.has(w));
  if (words.length && wanted.length === 0) return { scripts: [] }; // just fails: no such recipe
  const queue = wanted.length ? wanted : first ? [first] : [];
  const scripts = [...backticks];
  const seen = new Set<string>();
  while (queue.length) {
    const recipe = recipes.get(queue.shift() as string);
    if (!recipe || seen.has(recipe.name)) continue;
    seen.add(recipe.name);
    queue.push(...recipe.deps);
    const body = dedent(recipe.body).map((l) =>
      l
        .replace(/\{\{\{\{/g, "{{")
        .replace(/\{\{(.*?)\}\}/g, (_m, e: string) => `\${MCQ_JUST_${e.trim().replace(/\W/g, "_")}}`),
    );
    const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(body[0] ?? "");
    if (shebang) {
      const program = shebang[1]?.endsWith("/env") ? (shebang[2] ?? "") : (shebang[1] ?? "");
      if (!SHELLS.test(program))
        return { why: `recipe ${recipe.name} is a ${program} script, which is not read here` };
      scripts.push(body.slice(1).join("\n"));
    } else
      scripts.push(
        ...body
          .map((l) => l.replace(/^[@-]+/, ""))
          .filter((l) => l.trim() !== "" && !l.trim().startsWith("#")),
      );
  }
  return { scripts };
}

/** The body lines without their common indentation; a trailing blank line dropped. */
function dedent(lines: string[]): string[] {
  const kept = [...lines];
  while (kept.length && (kept.at(-1) as string).trim() === "") kept.pop();
  const indent = Math.min(
    ...kept.filter((l) => l.trim() !== "").map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0),
  );
  return kept.map((l) => l.slice(Number.isFinite(indent) ? indent : 0));
}
