/** What Go files a package pattern covers, as the go command would see them. */
import fs from "node:fs";
import path from "node:path";

/**
 * Whether the packages `pattern` names (`.`, `./sub`, `./...`, `./sub/...` below `moduleDir`) have a .go file;
 * folders go skips (testdata, vendor, `_` and `.` ones) and nested modules (their own go.mod) left out.
 */
export function hasGoFiles(moduleDir: string, pattern: string): boolean {
  const recursive = pattern.endsWith("/...");
  const start = path.join(moduleDir, recursive ? pattern.slice(0, -4) : pattern);
  const stack = [start];
  while (stack.length) {
    const dir = stack.pop() as string;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.isFile() && e.name.endsWith(".go")) return true;
      if (
        recursive &&
        e.isDirectory() &&
        !/^[._]/.test(e.name) &&
        e.name !== "testdata" &&
        e.name !== "vendor" &&
        !fs.existsSync(path.join(dir, e.name, "go.mod"))
      )
        stack.push(path.join(dir, e.name));
    }
  }
  return false;
}
