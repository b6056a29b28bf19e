/**
 * Whether Prettier's CLI formats a file of a folder it walks (`prettier --check .`): a file whose extension or
 * name a language of this Prettier has, or a file with no dot in its name whose `#!` line names one of their
 * interpreters (tj/commander.js: `examples/pizza`, `#!/usr/bin/env node`, 15 such files that were never checked).
 * Used by the worker's walk and the result cache's, which must agree.
 */
import path from "node:path";
import { firstLineOf, shebangInterpreter } from "../script-files.js";

export { shebangInterpreter };

export interface PrettierKinds {
  extensions: readonly string[];
  filenames: ReadonlySet<string>;
  interpreters: readonly string[];
}

/** Whether Prettier's walk takes `file` (its first line is read only for a name without a dot). */
export function prettierTakes(file: string, kinds: PrettierKinds): boolean {
  const name = path.basename(file);
  if (kinds.extensions.includes(path.extname(file)) || kinds.filenames.has(name)) return true;
  if (name.includes(".") || kinds.interpreters.length === 0) return false;
  const interpreter = shebangInterpreter(firstLineOf(file));
  return interpreter !== undefined && kinds.interpreters.includes(interpreter);
}
