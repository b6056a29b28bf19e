/**
 * The tsconfigs a project's package.json scripts type-check with (`"check:type:ts": "tsd && tsc -p
 * tsconfig.ts.json"`, tj/commander.js): a type check of the nearest tsconfig.json is not theirs (commander's
 * tsconfig.ts.json turns strictNullChecks and noImplicitAny on: 2 of its 4 errors were never shown). Pure.
 */

/** `tsc -p X`, `tsc --project X`, `tsc -p=X`, `--project=X`, in one command of a script. */
const TSC_PROJECT =
  /(?:^|[\s;&|(])(?:npx\s+)?tsc\b[^;&|]*?\s(?:-p|--project)(?:\s+|=)("[^"]+"|'[^']+'|[^\s;&|]+)/g;

/** Each script's tsc project files, as written (relative to the package.json's folder). */
export function scriptTsconfigs(
  scripts: Record<string, unknown> | undefined,
): { script: string; config: string }[] {
  const out: { script: string; config: string }[] = [];
  for (const [script, command] of Object.entries(scripts ?? {})) {
    if (typeof command !== "string") continue;
    for (const m of command.matchAll(TSC_PROJECT))
      out.push({ script, config: (m[1] as string).replace(/^["']|["']$/g, "") });
  }
  return out;
}
