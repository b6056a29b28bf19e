/**
 * A git subcommand's options and operands as its parse-options table (options.json) reads them: unique
 * prefixes of long options, bundled short options, `--no-X` negations, the last of a pair winning; then what
 * the subcommand does beyond its options (subcommand-effects.ts).
 */
import options from "./options.json" with { type: "json" };
import type { GitInvocation, ParseState } from "./invocation.js";
import { afterOptions } from "./subcommand-effects.js";

interface OptionSpec {
  short?: string;
  long?: string;
  arg: "none" | "required" | "optional";
}

interface CommandTable {
  options: OptionSpec[];
  negatable: string[];
}

const TABLES = options.commands as unknown as Record<string, CommandTable>;

interface Resolved {
  spec: OptionSpec;
  negated: boolean;
}

/** A long option as git's parse-options resolves it: exact, `no-` negation, or a unique prefix (all candidates, when ambiguous). */
function resolveLong(table: CommandTable, name: string): Resolved[] {
  const byLong = new Map<string, OptionSpec>();
  for (const o of table.options) if (o.long) byLong.set(o.long, o);
  const candidates: { word: string; r: Resolved }[] = [];
  for (const [long, spec] of byLong) {
    candidates.push({ word: long, r: { spec, negated: false } });
    if (table.negatable.includes(long)) {
      if (long.startsWith("no-")) candidates.push({ word: long.slice(3), r: { spec, negated: true } });
      else candidates.push({ word: `no-${long}`, r: { spec, negated: true } });
    }
  }
  const exact = candidates.filter((c) => c.word === name);
  if (exact.length) return exact.map((c) => c.r);
  return candidates.filter((c) => c.word.startsWith(name)).map((c) => c.r);
}

function flagNames(spec: OptionSpec): string[] {
  return [...(spec.long ? [`--${spec.long}`] : []), ...(spec.short ? [`-${spec.short}`] : [])];
}

/** The subcommand's options and operands, by its table (a command without one: options kept as written). */
export function readSubcommand(
  inv: GitInvocation,
  sub: string,
  args: string[],
  dyn: boolean[],
  state: ParseState,
): void {
  const table = TABLES[sub] ?? { options: [], negatable: [] };
  const inEffect = new Map<string, OptionSpec>();
  const literal: string[] = [];
  // A negation is in effect under its own `--no-X` name (or `--X` for an option spelled `no-X`): pull's table
  // has `verify`, so `git pull --no-verify` is only seen as "--no-verify" in flags this way.
  const put = (spec: OptionSpec, negated: boolean, value?: string) => {
    const key = spec.long ?? spec.short ?? "";
    const opposite = spec.long?.startsWith("no-") ? spec.long.slice(3) : `no-${key}`;
    inEffect.delete(key);
    inEffect.delete(`!${key}`);
    if (negated) {
      if (spec.long) inEffect.set(`!${key}`, { long: opposite, arg: "none" });
    } else {
      inEffect.set(key, spec);
      if (value !== undefined) (inv.values[flagNames(spec)[0] as string] ??= []).push(value);
    }
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (dyn[i]) {
      // It could be any option (or several, split): git's reading of the rest is not known.
      if (a === "" || /^[-$`]/.test(a)) inv.dynamicOption = true;
      inv.operands.push(a);
      continue;
    }
    if (a === "--") {
      inv.operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = a.slice(2, eq === -1 ? undefined : eq);
      const found = resolveLong(table, name);
      if (found.length === 0) {
        literal.push(`--${name}`);
        continue;
      }
      if (found.length > 1) {
        // git refuses an ambiguous abbreviation (exit 129: nothing runs), but which options a prefix can
        // mean depends on the git version: not a block, and not known to be harmless either.
        const could = [...new Set(found.map((f) => `--${f.negated ? "no-" : ""}${f.spec.long ?? ""}`))].join(
          ", ",
        );
        inv.undecided ||= `git refuses the ambiguous option --${name} (it could be ${could}), and another git version may read it as one of them`;
        literal.push(`--${name}`);
        continue;
      }
      for (const { spec, negated } of found) {
        let value: string | undefined;
        if (eq !== -1) value = a.slice(eq + 1);
        else if (spec.arg === "required" && !negated && found.length === 1) value = args[++i];
        put(spec, negated, value);
      }
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const letter = a[j] as string;
        const spec = table.options.find((o) => o.short === letter);
        if (!spec) {
          literal.push(`-${letter}`);
          continue;
        }
        if (spec.arg === "none") {
          put(spec, false);
          continue;
        }
        const attached = a.slice(j + 1);
        const value = attached !== "" ? attached : spec.arg === "required" ? args[++i] : undefined;
        put(spec, false, value);
        break;
      }
      continue;
    }
    inv.operands.push(a);
  }
  // git stops at an ambiguous option: none of the others take effect (the run is undecided, above).
  if (!inv.undecided.startsWith("git refuses the ambiguous option"))
    for (const spec of inEffect.values()) inv.flags.push(...flagNames(spec));
  inv.flags.push(...literal);
  afterOptions(inv, sub, args, state);
}
