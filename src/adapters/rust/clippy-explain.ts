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
}

/** Parses `clippy-driver -W help`: the "Lint checks loaded by this crate" and "Lint groups" tables. */
export function parseClippyHelp(text: string): ClippyLintList {
  const lints = new Map<string, { level: string; meaning: string }>();
  const groups = new Map<string, string[]>();
  const snake = (s: string) => s.replace(/-/g, "_");
  for (const m of text.matchAll(/^\s+clippy::([a-z0-9-]+)\s+(allow|warn|deny|forbid)\s+(.*)$/gm))
    lints.set(snake(m[1] as string), { level: m[2] as string, meaning: (m[3] as string).trim() });
  for (const m of text.matchAll(
    /^\s+clippy::([a-z0-9-]+)\s+(clippy::[a-z0-9-]+(?:, clippy::[a-z0-9-]+)*)\s*$/gm,
  ))
    groups.set(
      snake(m[1] as string),
      (m[2] as string).split(", ").map((l) => snake(l.replace("clippy::", ""))),
    );
  return { lints, groups };
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

/** The nearest Cargo.toml from `target` up, inside its allowed root, and the level it sets for `lint`. */
function cargoLevel(ctx: ToolContext, target: string, lint: string): Record<string, unknown> | undefined {
  const root = ctx.allowlist.rootOf(target) ?? target;
  let dir = fs.statSync(target, { throwIfNoEntry: false })?.isFile() ? path.dirname(target) : target;
  for (; isWithin(root, dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, "Cargo.toml");
    if (fs.existsSync(manifest)) {
      let lints: Record<string, unknown>;
      try {
        const toml = parseToml(fs.readFileSync(manifest, "utf8")) as {
          lints?: { clippy?: Record<string, unknown> };
          workspace?: { lints?: { clippy?: Record<string, unknown> } };
        };
        lints = toml.lints?.clippy ?? toml.workspace?.lints?.clippy ?? {};
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
  if (!lint)
    return unknownRule(
      "clippy",
      raw,
      [...list.lints.keys(), ...list.groups.keys()].map((l) => `clippy::${l}`),
    );
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
