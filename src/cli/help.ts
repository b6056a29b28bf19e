/**
 * The one --help layout of every command: a usage line, what it does, its commands (if it has any), its
 * flags in groups, a footer. `mcp-code-quality --help` and `mcp-code-quality check --help` look alike.
 */
import type { Flag } from "./args.js";

export interface Help {
  /** Ways to call it, the first after "Usage: " (`mcp-code-quality check [PATH...] [options]`). */
  usage: string[];
  about?: string[];
  /** Its commands: how each is called, and what it does. */
  commands?: (readonly [string, string])[];
  /** Flag groups, each under its title ("Options"). */
  groups: { title: string; flags: readonly Flag[] }[];
  footer?: string[];
}

const FLAG_COLUMN = 30;

/** `--timeout VALUE`, `-h, --help`. */
function label(f: Flag): string {
  const name = f.short ? `-${f.short}, ${f.flag}` : f.flag;
  return f.type === "boolean" ? name : `${name} ${f.value ?? "VALUE"}`;
}

export function flagRow(f: Flag): string {
  const env = f.env?.length ? ` [env ${f.env.join(", ")}]` : "";
  const l = label(f);
  const pad = l.length >= FLAG_COLUMN ? `${l}\n${" ".repeat(FLAG_COLUMN + 3)}` : l.padEnd(FLAG_COLUMN);
  return `  ${pad} ${f.help}${env}`;
}

export function renderHelp(h: Help): string {
  const [first = "", ...more] = h.usage;
  const out = [`Usage: ${first}`, ...more.map((u) => `       ${u}`)];
  if (h.about?.length) out.push("", ...h.about);
  if (h.commands?.length)
    out.push("", "Commands:", ...h.commands.map(([call, what]) => `  ${call}\n      ${what}`));
  for (const g of h.groups) if (g.flags.length) out.push("", `${g.title}:`, ...g.flags.map(flagRow));
  if (h.footer?.length) out.push("", ...h.footer);
  return out.join("\n");
}
