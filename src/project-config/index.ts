/**
 * A project's settings for the server: one YAML file, `.mcp-code-quality/config.yaml`, in the project
 * (the nearest directory at or above the checked path, up to its allowed root, that has one). Read
 * through the allowlist: a `.mcp-code-quality` directory or config file that is a symbolic link is
 * refused, and the opened file must lie inside the allowed roots. Call arguments override what it says.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import { isWithin, type Allowlist } from "../paths/allowlist.js";
import { projectConfigSchema, type ProjectConfig } from "./sections.js";
import { yaml } from "../yaml-lazy.js";

export type { MarkdownLinksSettings, ProjectConfig } from "./sections.js";

export const PROJECT_CONFIG_DIR = ".mcp-code-quality";
export const PROJECT_CONFIG_FILE = "config.yaml";
const MAX_CONFIG_BYTES = 256 * 1024;

export interface LoadedProjectConfig {
  config: ProjectConfig;
  /** The file read, when there is one. */
  file?: string;
}

/** The directory at or above `start` (inside its allowed root) holding `.mcp-code-quality`, if any. */
function findConfigDirectory(start: string, allowlist: Allowlist): string | undefined {
  const root = allowlist.rootOf(start);
  if (!root) return undefined;
  for (let d = start; isWithin(root, d); d = path.dirname(d)) {
    try {
      fs.lstatSync(path.join(d, PROJECT_CONFIG_DIR));
      return d;
    } catch {
      // not here; look further up
    }
    if (d === root || path.dirname(d) === d) return undefined;
  }
  return undefined;
}

function refuse(file: string, why: string): never {
  throw new ToolError("path_validation", `project config ${file} ${why}; not read`);
}

/** Reads the file without following links, and checks what was opened is inside the allowed roots. */
function readConfigFile(file: string, allowlist: Allowlist): string {
  const dir = path.dirname(file);
  if (!fs.lstatSync(dir).isDirectory())
    refuse(file, `is in ${PROJECT_CONFIG_DIR}, which is not a directory (a link?)`);
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "";
    if (code === "ELOOP") refuse(file, "is a symbolic link");
    throw new ToolError("invalid_input", `cannot read project config ${file}: ${code ?? String(err)}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) refuse(file, "is not a regular file");
    const opened = fs.realpathSync.native(`/proc/self/fd/${fd}`);
    if (!allowlist.rootOf(opened)) refuse(file, "resolves outside the allowed paths");
    if (st.size > MAX_CONFIG_BYTES)
      throw new ToolError("invalid_input", `project config ${file} is larger than ${MAX_CONFIG_BYTES} bytes`);
    return fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Loads the project config for a canonical path inside the allowlist. No file: an empty config.
 * A file that is not valid YAML or does not match the schema is invalid_input naming the key.
 */
export function loadProjectConfig(canonicalPath: string, allowlist: Allowlist): LoadedProjectConfig {
  let start = canonicalPath;
  try {
    if (!fs.statSync(canonicalPath).isDirectory()) start = path.dirname(canonicalPath);
  } catch {
    start = path.dirname(canonicalPath);
  }
  const dir = findConfigDirectory(start, allowlist);
  if (!dir) return { config: {} };
  const file = path.join(dir, PROJECT_CONFIG_DIR, PROJECT_CONFIG_FILE);
  const text = readConfigFile(file, allowlist);
  if (text.trim() === "") return { config: {}, file };
  let raw: unknown;
  try {
    raw = yaml().parse(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new ToolError(
      "invalid_input",
      `project config ${file} is not valid YAML: ${(err as Error).message}`,
    );
  }
  const parsed = projectConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "(top level)";
    throw new ToolError("invalid_input", `project config ${file}: ${where}: ${issue?.message ?? "invalid"}`);
  }
  return { config: parsed.data, file };
}
