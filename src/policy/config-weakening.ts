/**
 * Weakenings of a lint or type-check configuration that its added lines alone do not show: a rule list
 * emptied (`select = []`), source folders excluded from checking (`exclude = ["src"]`, tsconfig's
 * `"exclude"`, ESLint `ignores`, mypy's `exclude` regex, a line of `.eslintignore`), and ESLint rules
 * turned off in package.json's `eslintConfig`. Folders that are outputs or vendored (build, dist,
 * node_modules, .venv, migrations, generated, …) may be excluded freely. Pure.
 */

/** Lint and type-check configuration files, by basename. */
export const CONFIG_FILE =
  /^(tsconfig.*\.json|jsconfig\.json|pyproject\.toml|setup\.cfg|tox\.ini|\.flake8|\.?mypy\.ini|\.?ruff\.toml|\.eslintrc.*|eslint\.config\.[cm]?[jt]s|\.rubocop.*\.ya?ml|\.?clippy\.toml|pyrightconfig\.json|\.golangci\.ya?ml|biome\.jsonc?|\.pylintrc|pylintrc|\.eslintignore|deno\.jsonc?|\.stylelintrc.*)$/;

/** Entries an exclude may name without weakening anything: outputs, caches, vendored code, fixtures. */
const SAFE_EXCLUDE =
  /^(\^?\.?\/)?(\*\*\/)?(build|dist|out|target|coverage|htmlcov|node_modules|bower_components|vendor|third[_-]party|\.venv|venv|env|\.env|\.tox|\.nox|\.git|\.hg|\.svn|__pycache__|\.mypy_cache|\.ruff_cache|\.pytest_cache|site-packages|\.eggs|[^/]*\.egg-info|migrations|alembic|docs\/_build|_build|generated|gen|__generated__|\.next|\.nuxt|\.svelte-kit|\.cache|\.turbo|tmp|\.tmp|\.idea|\.vscode|fixtures|__fixtures__|snapshots|__snapshots__|typings|stubs|public|static|assets|\.yarn|\.pnpm-store|lib\/generated)(\/.*)?$|(^|\/)\*\*?\/?\*?\.(min\.js|min\.css|d\.ts|pyi|pb\.go|generated\.\w+|snap|lock)$|^\*\.(min\.js|d\.ts|pyi|pb\.go|snap)$/;

const EXCLUDE_KEYS =
  /(?:^|[\s,{])["']?(?:lint\.|tool\.[a-z]+\.)?(?:extend-|force-)?(?:exclude|excludes|exclude_dirs|ignore[-_]?patterns|ignorePatterns|ignores|ignore_paths|skip-dirs|skip_dirs|exclude-dirs)["']?\s*[:=]\s*(\[[^\]]*\]|"[^"\n]*"|'[^'\n]*')/g;

/** The entries of the exclude settings in a config text. */
function excludes(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(EXCLUDE_KEYS)) {
    const value = m[1] as string;
    for (const e of value.matchAll(/"([^"\n]*)"|'([^'\n]*)'/g)) {
      const entry = (e[1] ?? e[2] ?? "").trim();
      if (entry) out.add(entry);
    }
  }
  return out;
}

const safe = (entry: string) =>
  entry
    .replace(/\$$/, "")
    .split("|")
    .every((alt) =>
      SAFE_EXCLUDE.test(
        alt
          .replace(/^\(|\)$/g, "")
          .replace(/\\\./g, ".")
          .replace(/\/\*\*$|\/\*$|\/$/, ""),
      ),
    );

/** What off means in an ESLint severity: 0, "off", or [0|"off", …]. */
const off = (v: unknown) => v === 0 || v === "off" || (Array.isArray(v) && (v[0] === 0 || v[0] === "off"));

/** ESLint's rules in package.json's eslintConfig, or in a JSON .eslintrc (comments allowed). */
function eslintRules(basename: string, text: string): Record<string, unknown> | undefined {
  try {
    if (basename === "package.json") {
      const pkg = JSON.parse(text) as { eslintConfig?: { rules?: Record<string, unknown> } };
      return pkg.eslintConfig?.rules ?? (pkg.eslintConfig ? {} : undefined);
    }
    const json = text.replace(/^\s*\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "");
    return (JSON.parse(json) as { rules?: Record<string, unknown> }).rules;
  } catch {
    return undefined;
  }
}

/** Rules set to off (0, "off") that were not off before. */
function rulesTurnedOff(basename: string, before: string, after: string): string[] {
  const was = eslintRules(basename, before) ?? {};
  const now = eslintRules(basename, after) ?? {};
  return Object.entries(now)
    .filter(([rule, level]) => off(level) && !off(was[rule]))
    .map(([rule]) => `eslint-rule-off:${rule}`);
}

/** A rule set to error on a line: `"semi": "error"`, `eqeqeq: ["error", "always"]`, `"x": 2` (several per line). */
const ERROR_SETTING = /["']?([@\w/.-]+)["']?\s*:\s*\[?\s*(?:["']error["']|2\b)/g;

const errorRules = (lines: readonly string[]) =>
  new Set(lines.flatMap((l) => [...l.matchAll(ERROR_SETTING)].map((m) => m[1] as string)));

/**
 * Rules a removed line set to error that no added line sets to error again. A line is compared whole, so
 * reordering `"semi": "error"` and `"eqeqeq": "error"` on one line, `"semi": "error"` becoming
 * `["error", "always"]`, or a rule added beside them removed a line without weakening anything.
 */
function errorRulesDropped(removed: readonly string[], added: readonly string[]): string[] {
  const still = errorRules(added);
  return [...errorRules(removed)].filter((r) => !still.has(r)).map((r) => `rule-error-removed:${r}`);
}

/** The weakenings an edit of `basename` from `before` to `after` makes (each as `kind:detail`). */
export function configWeakening(
  basename: string,
  before: string,
  after: string,
  added: readonly string[],
  removed: readonly string[] = [],
): string[] {
  const out: string[] = [];
  if (basename === "package.json") {
    out.push(...rulesTurnedOff(basename, before, after));
    if (/"eslintIgnore"\s*:/.test(after) && !/"eslintIgnore"\s*:/.test(before))
      out.push("eslint-ignore:package.json");
    return out;
  }
  if (!CONFIG_FILE.test(basename)) return out;
  out.push(...errorRulesDropped(removed, added));
  if (/^\.eslintrc(\.json)?$/.test(basename)) out.push(...rulesTurnedOff(basename, before, after));
  if (basename === ".eslintignore") {
    for (const line of added) if (line && !line.startsWith("#") && !safe(line)) out.push(`exclude:${line}`);
    return out;
  }
  for (const line of added)
    if (/^["']?(lint\.)?(extend-)?select["']?\s*[:=]\s*\[\s*\]/.test(line)) out.push("select-emptied");
  const was = excludes(before);
  for (const entry of excludes(after)) if (!was.has(entry) && !safe(entry)) out.push(`exclude:${entry}`);
  return out;
}
