/**
 * The tsconfigs a project's package.json scripts type-check with (`"check:type:ts": "tsd && tsc -p
 * tsconfig.ts.json"`, tj/commander.js): a type check of the nearest tsconfig.json alone is not theirs
 * (commander's tsconfig.ts.json turns strictNullChecks and noImplicitAny on). Each script is read by the
 * policy's shell parser (tree-sitter-bash: quotes, `&&`, `cd dir &&`, `npx`/`npm exec` wrappers), not by a
 * pattern; then each config is resolved and kept only when it exists inside the project.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isWithin } from "../../paths/allowlist.js";
import { parseCommandLine } from "../../policy/shell.js";

/** One `tsc -p X` of a script: X as written, resolved against the command's folder when the line says it. */
export interface ScriptTsconfig {
  script: string;
  config: string;
  /** Absolute; undefined when only the running script knows it (`tsc -p $CONFIG`, `cd "$DIR"`). */
  resolved?: string;
}

/** tsc's own reading: option names are case-insensitive, the value is the next word (it has no `-p=X`). */
function projectsOf(
  argv: readonly string[],
  dynamic: readonly boolean[],
): { value: string; known: boolean }[] {
  const out: { value: string; known: boolean }[] = [];
  for (let i = 1; i < argv.length - 1; i++) {
    const name = (argv[i] as string).toLowerCase();
    if (name === "-p" || name === "--project")
      out.push({ value: argv[i + 1] as string, known: !(dynamic[i + 1] ?? false) });
  }
  return out;
}

/** Each script's tsc project files, as written and resolved from `dir` (the package.json's folder). */
export async function scriptTsconfigs(
  scripts: Record<string, unknown> | undefined,
  dir: string,
): Promise<ScriptTsconfig[]> {
  const out: ScriptTsconfig[] = [];
  for (const [script, command] of Object.entries(scripts ?? {})) {
    if (typeof command !== "string" || !/\btsc\b/.test(command)) continue;
    // No git alias is read: a script's git commands do not matter here, and reading one runs git.
    const parsed = await parseCommandLine(command, { cwd: dir, home: os.homedir(), gitConfig: () => null });
    for (const c of parsed.commands) {
      if (c.argv.length === 0 || c.dynamic[0] || path.basename(c.argv[0] as string) !== "tsc") continue;
      for (const p of projectsOf(c.argv, c.dynamic)) {
        const resolved = p.known && c.cwd !== undefined ? path.resolve(c.cwd, p.value) : undefined;
        if (!out.some((o) => o.script === script && o.config === p.value))
          out.push({ script, config: p.value, ...(resolved !== undefined && { resolved }) });
      }
    }
  }
  return out;
}

/** A script's tsconfig that is run, with the scripts that name it. */
export interface RunnableTsconfig {
  file: string;
  scripts: string[];
  /** Run because a checked tsconfig references it (tsconfig-references.ts), not for a script. */
  referenced?: true;
}

/**
 * Which of the scripts' tsconfigs can run beside `primary` (the one the check runs anyway): each must exist
 * and, with its links followed, be a file inside `project` (the package.json's folder) and the allowed paths;
 * the others are said, with why. `tsc -p dir` means dir/tsconfig.json, as tsc reads it.
 */
export function runnableTsconfigs(
  found: readonly ScriptTsconfig[],
  primary: string,
  project: string,
  allowed: (canonical: string) => boolean,
): { run: RunnableTsconfig[]; skipped: string[] } {
  const canonicalPrimary = fs.realpathSync.native(primary);
  const run: RunnableTsconfig[] = [];
  const skipped: string[] = [];
  const skip = (s: ScriptTsconfig, why: string) => skipped.push(`${s.config} (${s.script}), not run: ${why}`);
  for (const s of found) {
    if (s.resolved === undefined) {
      skip(s, "its path is only known when the script runs");
      continue;
    }
    let file = s.resolved;
    if (!isWithin(project, file)) {
      skip(s, `it is outside the project (${project})`);
      continue;
    }
    if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory()) file = path.join(file, "tsconfig.json");
    let canonical: string;
    try {
      canonical = fs.realpathSync.native(file);
    } catch {
      skip(s, "it does not exist");
      continue;
    }
    if (!isWithin(project, canonical) || !allowed(canonical)) {
      skip(s, `it leads outside the project (${canonical})`);
      continue;
    }
    if (!fs.statSync(canonical).isFile()) {
      skip(s, "it is not a file");
      continue;
    }
    if (canonical === canonicalPrimary) continue;
    const known = run.find((r) => r.file === canonical);
    if (known) {
      if (!known.scripts.includes(s.script)) known.scripts.push(s.script);
    } else run.push({ file: canonical, scripts: [s.script] });
  }
  return { run, skipped };
}
