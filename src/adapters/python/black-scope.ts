/**
 * What black formats in a project: the files the project's pre-commit hands its `black` hooks (pylint's
 * exclude their test fixtures: black over the whole tree would report 705 files the project never formats),
 * with the hooks' formatting flags; else the target, black's own walk. A file target is always itself.
 */
import fs from "node:fs";
import type { ToolContext } from "../../engine/tool.js";
import { isPythonOrStub, preCommitFiles } from "../pre-commit-files.js";

export interface BlackScope {
  /** What black is handed: the pre-commit hooks' files, else the target. */
  targets: string[];
  /** The hooks' flags that change black's output (`--line-length 100`, `--preview`...). */
  flags: string[];
  /** True when `targets` are the pre-commit hooks' files. */
  handed: boolean;
  note?: string;
  /** The black version the project's pre-commit hook pins, when its repository says (pinnedTool). */
  pinned?: string;
}

/** black's options that change what it writes (with a value: true); the rest (`--quiet`, `--safe`) do not. */
const FORMATTING_FLAGS: Record<string, boolean> = {
  "-l": true,
  "--line-length": true,
  "-t": true,
  "--target-version": true,
  "--pyi": false,
  "--ipynb": false,
  "--python-cell-magics": true,
  "-S": false,
  "--skip-string-normalization": false,
  "-C": false,
  "--skip-magic-trailing-comma": false,
  "-x": false,
  "--skip-source-first-line": false,
  "--preview": false,
  "--unstable": false,
  "--enable-unstable-feature": true,
};

/** The formatting flags among a hook's args, in order (`--line-length=100` or `--line-length 100`). Pure. */
export function blackFormattingFlags(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const [name, inline] = arg.startsWith("--") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const takesValue = FORMATTING_FLAGS[name as string];
    if (takesValue === undefined) continue;
    if (!takesValue) out.push(arg);
    else if (inline !== undefined) out.push(arg);
    else if (i + 1 < args.length) out.push(arg, args[++i] as string);
  }
  return out;
}

export async function blackScope(ctx: ToolContext, target: string): Promise<BlackScope> {
  const whole: BlackScope = { targets: [target], flags: [], handed: false };
  if (!fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) return whole;
  const handed = await preCommitFiles(ctx, target, "black", isPythonOrStub, "formatted");
  if (!handed) return whole;
  const flags = blackFormattingFlags(handed.args);
  const pinned = handed.pinned ? { pinned: handed.pinned } : {};
  // Patterns RE2 cannot run, or no file selected: black's own walk of the target, as before.
  if (!handed.files?.length) return { ...whole, flags, note: handed.note, ...pinned };
  return { targets: handed.files, flags, handed: true, note: handed.note, ...pinned };
}
