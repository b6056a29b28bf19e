/**
 * Broad suppressions in lines an edit adds, read by each tool's own suppression grammar: what the tool
 * would take as silencing every rule (or a whole group or file), however it is spelled (case, spacing,
 * the tool's synonyms). A suppression naming its rules is narrow and not reported.
 *
 * - flake8 / ruff: `# noqa` and `# noqa:` with no code (flake8's NOQA_INLINE_REGEX is case-insensitive
 *   and takes `# noqa:` with nothing after it as a blanket noqa), `# flake8: noqa`, `# ruff: noqa` (file).
 * - mypy: `# type: ignore` without `[code]`, `# mypy: ignore-errors`; pyright: `# pyright: ignore` without
 *   `[rule]`, `# pyright: basic`; ty: `# ty: ignore` without `[rule]`; pyre: `# pyre-ignore-all-errors`,
 *   a bare `# pyre-ignore` / `# pyre-fixme`.
 * - pylint: `disable=all` (also `disable-next`, `disable-msg`), `skip-file`, `disable-all`.
 * - bandit / gosec: a bare `# nosec` / `#nosec` (no test ids).
 * - ESLint: `eslint-disable`, `-line`, `-next-line` with no rule (a `-- reason` is not a rule), and an
 *   inline config turning a rule off (`/* eslint no-console: 0 *\/`, `"off"`); TypeScript: `@ts-ignore`,
 *   `@ts-nocheck`; Biome: `biome-ignore lint:` / `biome-ignore-all`; Deno: a bare `deno-lint-ignore(-file)`.
 * - golangci-lint: `//nolint` bare or `:all`; staticcheck's `//lint:ignore` names its checks (narrow).
 * - RuboCop: `rubocop:disable|todo all` or a whole department (`Style`), any spacing and case.
 * - rustc / clippy: `allow`/`expect` (also inside `cfg_attr`) of a lint group: `warnings`, `unused`,
 *   `clippy::all`, `clippy::pedantic`, … with any spacing.
 * - ShellCheck: `disable=all`; clang-tidy: a bare `NOLINT`, `NOLINTNEXTLINE`, `NOLINTBEGIN`; Java/Kotlin:
 *   `@SuppressWarnings("all")`, `@Suppress("ALL")`; SwiftLint: `swiftlint:disable all`.
 */

const RUST_GROUPS = new Set([
  "warnings",
  "unused",
  "nonstandard_style",
  "future_incompatible",
  "let_underscore",
  "rust_2018_idioms",
  "rust_2018_compatibility",
  "rust_2021_compatibility",
  "rust_2024_compatibility",
  "refining_impl_trait",
  "keyword_idents",
  "clippy::all",
  "clippy::correctness",
  "clippy::suspicious",
  "clippy::style",
  "clippy::complexity",
  "clippy::perf",
  "clippy::pedantic",
  "clippy::restriction",
  "clippy::nursery",
  "clippy::cargo",
]);

const RUBOCOP_DEPARTMENTS =
  /^(all|style|layout|lint|metrics|naming|security|bundler|gemspec|migration|rails|rspec|performance|minitest|rake|sorbet|capybara|factorybot|internalaffairs)$/i;

interface Rule {
  id: string;
  test: (line: string) => boolean;
}

const RULES: Rule[] = [
  {
    // flake8: `#\s*noqa(?::[\s]?(?P<codes>...))?`, case-insensitive; ruff reads the same (and `# NoQA`).
    id: "noqa",
    test: (line) => {
      for (const m of line.matchAll(/#\s*noqa(?![\w-])(:\s*([A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?/gi))
        if (!m[2]) return true;
      return false;
    },
  },
  { id: "noqa-file", test: (line) => /#\s*(flake8|ruff)\s*:\s*noqa\b(?!\s*:\s*[A-Z]+[0-9]+)/i.test(line) },
  {
    id: "type-ignore",
    test: (line) => /#\s*type\s*:\s*ignore\b(?!\s*\[\s*[\w-]+)/i.test(line),
  },
  { id: "mypy-ignore-errors", test: (line) => /#\s*mypy\s*:\s*ignore[-_]errors\b/i.test(line) },
  { id: "pyright-ignore", test: (line) => /#\s*pyright\s*:\s*(ignore\b(?!\s*\[\s*\w)|basic\b)/i.test(line) },
  { id: "ty-ignore", test: (line) => /#\s*ty\s*:\s*ignore\b(?!\s*\[\s*[\w-])/i.test(line) },
  {
    id: "pyre-ignore",
    test: (line) => /#\s*pyre-ignore-all-errors\b|#\s*pyre-(ignore|fixme)\b(?!\s*\[\s*\d)/i.test(line),
  },
  {
    id: "pylint-disable-all",
    test: (line) =>
      /#.*\bpylint\s*:\s*(skip-file|disable-all)\b/i.test(line) ||
      /#.*\bpylint\s*:\s*(disable|disable-next|disable-msg|disable-line)\s*=\s*([\w-]+\s*,\s*)*all\b/i.test(
        line,
      ),
  },
  {
    // bandit and gosec: `# nosec` / `// #nosec` with no test id (B602, G104).
    id: "nosec",
    test: (line) => {
      const m = /#\s*nosec\b\s*:?\s*([^#]*)/i.exec(line);
      return m !== null && !/\b[BG]\d{3}\b/.test(m[1] ?? "");
    },
  },
  {
    // ESLint directives are the comment's first word; rules follow, then an optional `-- description`.
    id: "eslint-disable",
    test: (line) => {
      for (const m of line.matchAll(
        /(?:\/\/|\/\*|<!--)\s*eslint-disable(?:-next-line|-line)?\b([^*]*?)(?:\*\/|-->|$)/g,
      )) {
        const rules = (m[1] ?? "").split(/\s--\s|\s--$/)[0] ?? "";
        if (!/[A-Za-z@]/.test(rules)) return true;
      }
      return false;
    },
  },
  {
    // An inline config comment turning a rule off: /* eslint rule: 0 */, /* eslint rule: "off", other: [...] */
    id: "eslint-rule-off",
    test: (line) => {
      const m = /\/\*\s*eslint\s+([^*]*)\*\//.exec(line);
      return m !== null && /[\w/@-]+\s*:\s*(\[\s*)?(0|["']off["'])/.test(m[1] as string);
    },
  },
  { id: "ts-ignore", test: (line) => /@ts-(ignore|nocheck)\b/i.test(line) },
  { id: "biome-ignore", test: (line) => /biome-ignore(-all|-start)?\s+lint\s*(:|$|\s)(?!\s*\/)/i.test(line) },
  { id: "deno-lint-ignore", test: (line) => /\/\/\s*deno-lint-ignore(-file)?\s*$/i.test(line) },
  {
    // golangci-lint: `//nolint`, `// nolint`, `//nolint:all`, `//nolint:all,errcheck`
    id: "nolint",
    test: (line) => {
      const m = /\/\/\s*nolint\b(:([\w,\s-]*))?/i.exec(line);
      if (!m) return false;
      if (m[1] === undefined) return true;
      const linters = (m[2] ?? "").split(/[,\s]+/).filter(Boolean);
      return linters.length === 0 || linters.some((l) => l.toLowerCase() === "all");
    },
  },
  {
    // RuboCop: `# rubocop:disable all`, `# rubocop: todo All`, `# rubocop:disable Style`
    id: "rubocop-disable",
    test: (line) => {
      const m = /#\s*rubocop\s*:\s*(disable|todo)\b\s*(.*)$/i.exec(line);
      if (!m) return false;
      const cops = (m[2] as string).split(/\s--\s|#/)[0] ?? "";
      const names = cops.split(/[\s,]+/).filter(Boolean);
      return names.length === 0 || names.some((n) => RUBOCOP_DEPARTMENTS.test(n));
    },
  },
  {
    id: "rust-allow-group",
    test: (line) => {
      for (const m of line.matchAll(/#!?\[\s*(?:cfg_attr\s*\(.*?,\s*)?(allow|expect)\s*\(([^)]*)\)/g)) {
        const lints = (m[2] as string)
          .split(",")
          .map((l) => l.replace(/\s+/g, ""))
          .filter((l) => l && !l.startsWith("reason="));
        if (lints.some((l) => RUST_GROUPS.has(l))) return true;
      }
      return false;
    },
  },
  {
    id: "shellcheck-disable-all",
    test: (line) => /#\s*shellcheck\s+disable\s*=\s*([\w,]*,)?all\b/i.test(line),
  },
  { id: "nolint-cpp", test: (line) => /\/[/*]\s*NOLINT(NEXTLINE|BEGIN)?\b(?!\s*\()/.test(line) },
  { id: "suppress-all", test: (line) => /@Suppress(Warnings)?\s*\(\s*"all"\s*\)/i.test(line) },
  {
    id: "swiftlint-disable-all",
    test: (line) => /swiftlint\s*:\s*disable(:next|:this|:previous)?\s+all\b/i.test(line),
  },
];

/** The broad suppressions in the given lines, by rule id (each once). */
export function broadSuppressions(lines: readonly string[]): string[] {
  const found = new Set<string>();
  for (const line of lines) {
    // Cheap gate: every directive above holds one of these words.
    if (
      !/noqa|type|mypy|pyright|ty:|ty\s|pyre|pylint|nosec|eslint|@ts-|biome|deno|nolint|rubocop|allow|expect|shellcheck|NOLINT|Suppress|swiftlint/i.test(
        line,
      )
    )
      continue;
    if (line.length > 4096) continue;
    for (const rule of RULES) if (!found.has(rule.id) && rule.test(line)) found.add(rule.id);
  }
  return [...found];
}
