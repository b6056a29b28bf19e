/** Where Go projects and Go tools are: the module root of a target, and the directories `go install` fills. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { isDirectory, nearestMarkerDir } from "../marker-dir.js";

/** The directory holding the nearest go.mod from target up to (and including) root; undefined when none. */
export function findGoModule(target: string, root: string): string | undefined {
  return nearestMarkerDir(target, root, "go.mod");
}

/** The module root of a target, or invalid_input when the target is not inside a Go module. */
export function requireGoModule(target: string, root: string, tool: string): string {
  const mod = findGoModule(target, root);
  if (!mod)
    throw new ToolError(
      "invalid_input",
      `${tool} needs a Go module: no go.mod in ${target} or its parents inside the allowed root`,
    );
  return mod;
}

/** The module path declared in go.mod (`module example.com/m`). */
export function modulePath(moduleDir: string): string | undefined {
  const text = fs.readFileSync(path.join(moduleDir, "go.mod"), "utf8");
  return /^module\s+(\S+)/m.exec(text)?.[1];
}

/**
 * The package pattern for a target: `./...` for the module root, `./sub/...` for a folder inside it, and the
 * file itself for a .go file (go vet and staticcheck accept files of one package).
 */
export function packagePattern(target: string, moduleDir: string): string {
  if (!isDirectory(target)) return target;
  const rel = path.relative(moduleDir, target);
  return rel === "" ? "./..." : `./${rel.split(path.sep).join("/")}/...`;
}

/** The pattern of the one package in a directory: `.` or `./sub`. */
export function packageDir(dir: string, moduleDir: string): string {
  const rel = path.relative(moduleDir, dir);
  return rel === "" ? "." : `./${rel.split(path.sep).join("/")}`;
}

/** Where `go install` puts binaries (GOBIN, GOPATH/bin, ~/go/bin): searched before PATH for Go tools. */
export function goBinDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs: string[] = [];
  if (env.GOBIN) dirs.push(env.GOBIN);
  for (const p of (env.GOPATH ?? "").split(path.delimiter).filter(Boolean)) dirs.push(path.join(p, "bin"));
  dirs.push(path.join(os.homedir(), "go", "bin"));
  return dirs;
}

/**
 * The environment every go command runs with: the installed toolchain only (a go.mod asking for a newer Go is a
 * clear error instead of a download). Go's default -mod=readonly already keeps go.mod and go.sum unchanged.
 */
export const GO_ENV = { GOTOOLCHAIN: "local" };
