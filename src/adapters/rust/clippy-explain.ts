/**
 * explain_rules for clippy, from what the installed clippy offers offline: its lint list and groups
 * (`clippy-driver -W help`: name, default level, one-line meaning), each lint's docs (`cargo clippy
 * --explain NAME`: description, example, "use instead"), and the level a crate's Cargo.toml `[lints.clippy]`
 * sets for it. clippy does not say per lint whether `cargo clippy --fix` corrects it (that depends on
 * each suggestion's applicability), so autocorrect is left out.
 */
import fs from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { ToolError } from "../../errors.js";
import type { ToolContext } from "../../engine/tool.js";
import { isWithin } from "../../paths/allowlist.js";
import { registerRuleCatalog } from "../rule-catalogs.js";
import {
  codeBlockAfter,
  registerRuleExplainer,
  unknownRule,
  type RuleExplanation,
} from "../rule-explainers.js";

export interface ClippyLintList {
  /** snake_case name → default level and meaning. */
  lints: Map<string, { level: string; meaning: string }>;
  /** Group name (style, pedantic...) → its lints, snake_case. */
  groups: Map<string, string[]>;
  /** rustc's own lints (`unused_variables`), which clippy reports too, and rustc's groups (`unused`). */
  rustcLints: Map<string, { level: string; meaning: string }>;
  rustcGroups: Map<string, string[]>;
}

/**
 * Parses `clippy-driver -W help`: rustc's and clippy's "Lint checks" tables (name, default level, meaning)
 * and "Lint groups" tables (name, sub-lints); names come back snake_case, clippy's without `clippy::`.
 */
export function parseClippyHelp(text: string): ClippyLintList {
  const list: ClippyLintList = {
    lints: new Map(),
    groups: new Map(),
    rustcLints: new Map(),
    rustcGroups: new Map(),
  };
  const snake = (s: string) => s.replace(/^clippy::/, "").replace(/-/g, "_");
  let section: "rustc" | "rustcGroups" | "clippy" | "clippyGroups" | undefined;
  for (const line of text.split("\n")) {
    if (/^Lint checks provided by rustc/.test(line)) section = "rustc";
    else if (/^Lint groups provided by rustc/.test(line)) section = "rustcGroups";
    else if (/^Lint checks loaded by/.test(line)) section = "clippy";
    else if (/^Lint groups loaded by/.test(line)) section = "clippyGroups";
    if (!section) continue;
    if (section === "rustc" || section === "clippy") {
      const m = /^\s+((?:clippy::)?[a-z0-9-]+)\s+(allow|warn|deny|forbid)\s+(.*)$/.exec(line);
      if (!m || (section === "clippy") !== m[1]!.startsWith("clippy::")) continue;
      (section === "clippy" ? list.lints : list.rustcLints).set(snake(m[1] as string), {
        level: m[2] as string,
        meaning: (m[3] as string).trim(),
      });
    } else {
      const m =
        /^\s+((?:clippy::)?[a-z0-9-]+)\s+((?:clippy::)?[a-z0-9-]+(?:, (?:clippy::)?[a-z0-9-]+)*)\s*$/.exec(
          line,
        );
      if (!m || m[1] === "name") continue;
      (section === "clippyGroups" ? list.groups : list.rustcGroups).set(
        snake(m[1] as string),
        (m[2] as string).split(", ").map(snake),
      );
    }
  }
  return list;
}

let cached: Promise<ClippyLintList> | undefined;

function lintList(ctx: ToolContext): Promise<ClippyLintList> {
  cached ??= (async () => {
    const lines: string[] = [];
    const r = await ctx.run({
      program: "clippy-driver",
      args: ["-W", "help"],
      onStdoutLine: (l) => void lines.push(l),
    });
    if (r.returncode !== 0)
      throw new ToolError("tool_error", `clippy-driver -W help failed (exit ${r.returncode})`);
    return parseClippyHelp(lines.join("\n"));
  })();
  cached.catch(() => (cached = undefined));
  return cached;
}

/** `clippy::needless-return`, `needless_return` → `needless_return`. */
const lintName = (name: string) =>
  name
    .replace(/^clippy::/, "")
    .replace(/-/g, "_")
    .toLowerCase();

/**
 * The nearest Cargo.toml from `target` up, inside its allowed root, and the level its `[lints.clippy]`
 * (or `[lints.rust]` for rustc's lints) sets for `lint`.
 */
function cargoLevel(
  ctx: ToolContext,
  target: string,
  lint: string,
  tool: "clippy" | "rust" = "clippy",
): Record<string, unknown> | undefined {
  const root = ctx.allowlist.rootOf(target) ?? target;
  let dir = fs.statSync(target, { throwIfNoEntry: false })?.isFile() ? path.dirname(target) : target;
  for (; isWithin(root, dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, "Cargo.toml");
    if (fs.existsSync(manifest)) {
      let lints: Record<string, unknown>;
      try {
        const toml = parseToml(fs.readFileSync(manifest, "utf8")) as {
          lints?: Record<string, Record<string, unknown>>;
          workspace?: { lints?: Record<string, Record<string, unknown>> };
        };
        lints = toml.lints?.[tool] ?? toml.workspace?.lints?.[tool] ?? {};
      } catch {
        return { manifest, error: "Cargo.toml does not parse" };
      }
      const key = Object.keys(lints).find((k) => lintName(k) === lint);
      return { manifest, level: key ? lints[key] : undefined };
    }
    if (dir === path.dirname(dir)) break;
  }
  return undefined;
}

/** Every name explain_rules and only/except take: clippy's lints and groups, rustc's lints and groups. */
function knownNames(list: ClippyLintList): string[] {
  return [
    ...[...list.lints.keys(), ...list.groups.keys()].map((l) => `clippy::${l}`),
    ...list.rustcLints.keys(),
    ...list.rustcGroups.keys(),
  ];
}

/** A rustc lint or group that clippy reports too (`unused_variables`, `unused`), from rustc's own table. */
function rustcExplanation(
  ctx: ToolContext,
  list: ClippyLintList,
  raw: string,
  target: string,
): RuleExplanation | undefined {
  if (raw.startsWith("clippy::")) return undefined;
  const name = raw.replace(/-/g, "_");
  const group = list.rustcGroups.get(name);
  if (group)
    return {
      name,
      linter: "clippy",
      kind: "category",
      summary: `rustc's ${name} lint group: ${group.length} lints`,
      rules: group,
      docs_url: "https://doc.rust-lang.org/rustc/lints/groups.html",
    };
  const lint = list.rustcLints.get(name);
  if (!lint) return undefined;
  const level = cargoLevel(ctx, target, name, "rust");
  return {
    name,
    linter: "clippy",
    kind: "rule",
    summary: `${lint.meaning} (a rustc lint; default level: ${lint.level})`,
    configuration: { default_level: lint.level, ...(level ?? {}) },
    docs_url: `https://doc.rust-lang.org/rustc/lints/listing/${lint.level}-by-default.html#${name.replace(/_/g, "-")}`,
  };
}

async function explainOne(
  ctx: ToolContext,
  list: ClippyLintList,
  raw: string,
  target: string,
): Promise<RuleExplanation> {
  const name = lintName(raw);
  const group = list.groups.get(name);
  if (group)
    return {
      name: `clippy::${name}`,
      linter: "clippy",
      kind: "category",
      summary: `clippy's ${name} group: ${group.length} lints`,
      rules: group.map((l) => `clippy::${l}`),
      docs_url: `https://rust-lang.github.io/rust-clippy/master/index.html#/?groups=${name}`,
    };
  const lint = list.lints.get(name);
  if (!lint) return rustcExplanation(ctx, list, raw, target) ?? unknownRule("clippy", raw, knownNames(list));
  const lines: string[] = [];
  await ctx.run({
    program: "cargo",
    args: ["clippy", "--explain", name],
    onStdoutLine: (l) => void lines.push(l),
  });
  const docs = lines.join("\n");
  const level = cargoLevel(ctx, target, name);
  return {
    name: `clippy::${name}`,
    linter: "clippy",
    kind: "rule",
    summary: `${lint.meaning} (default level: ${lint.level})`,
    description: docs.split(/\n### Example/)[0]?.trim() || undefined,
    bad_example: codeBlockAfter(docs, /^### Example\s*$/m),
    good_example: codeBlockAfter(docs, /^(?:Use instead|simplify to|Could be written as)[^\n]*$/im),
    configuration: { default_level: lint.level, ...(level ?? {}) },
    docs_url: `https://rust-lang.github.io/rust-clippy/master/index.html#${name}`,
  };
}

/** What only/except take for clippy: `clippy::` lints and groups, rustc's lints and groups, as findings name them. */
registerRuleCatalog("clippy", async (ctx) => {
  const list = await lintList(ctx);
  const prefixed = (names: readonly string[]) => names.map((l) => `clippy::${l}`);
  return {
    noun: "lint",
    rules: [...prefixed([...list.lints.keys()]), ...list.rustcLints.keys()],
    groups: new Map<string, readonly string[]>([
      ...[...list.groups].map(([g, lints]) => [`clippy::${g}`, prefixed(lints)] as [string, string[]]),
      ...list.rustcGroups,
    ]),
  };
});

registerRuleExplainer({
  linter: "clippy",
  async explain(ctx, names, target) {
    const list = await lintList(ctx);
    const items: RuleExplanation[] = [];
    for (const n of names) items.push(await explainOne(ctx, list, n, target));
    return {
      items,
      notes: [
        "clippy does not say per lint whether `cargo clippy --fix` corrects it: autocorrect is left out",
      ],
    };
  },
});
