/** Finds executables on PATH or in given directories, the way a shell would (without one). */
import fs from "node:fs";
import path from "node:path";

function isExecutableFile(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in `dirs` (in order), then on PATH; undefined when none. */
export function findExecutable(
  name: string,
  dirs: readonly string[] = [],
  envPath: string | undefined = process.env.PATH,
): string | undefined {
  if (name.includes("/")) return isExecutableFile(name) ? name : undefined;
  const search = [...dirs, ...(envPath ?? "").split(path.delimiter).filter(Boolean)];
  for (const dir of search) {
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
