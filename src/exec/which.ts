/** Finds executables on PATH or in given directories, the way a shell would (without one). */
import path from "node:path";
import which from "which";

// Between search folders: a character no path holds, so a folder named with `:` is searched whole.
const SEPARATOR = "\0";

/**
 * The first executable `name` in `dirs` (in order), then on PATH; undefined when none. A name with a
 * `/` is checked as given (and returned as given). Empty PATH entries are dropped, not read as the
 * working directory.
 */
export function findExecutable(
  name: string,
  dirs: readonly string[] = [],
  envPath: string | undefined = process.env.PATH,
): string | undefined {
  if (name.includes("/")) return which.sync(name, { nothrow: true }) ? name : undefined;
  const search = [...dirs, ...(envPath ?? "").split(path.delimiter)].filter(Boolean);
  // which reads an empty search path as the working directory: none here means none.
  if (search.length === 0) return undefined;
  return which.sync(name, { path: search.join(SEPARATOR), delimiter: SEPARATOR, nothrow: true }) ?? undefined;
}
