/**
 * A JS/TS project whose declared packages are not installed: a tool that cannot find one of them (tsc's
 * `TS2688 Cannot find type definition file for 'node'`, ESLint's `Cannot find package '@eslint/js'`) reports
 * the missing install, not the project's code. Every JS tool asks here, so each says the same thing: which
 * declared packages are missing and the install command of the project's package manager.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { findUp } from "./project.js";
import { isWithin } from "../../paths/allowlist.js";

const DEPENDENCY_FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"];

/** The package a module specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:"))
    return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** The packages the nearest package.json (from `start` up to `stopAt`) declares, and its folder. */
function declared(start: string, stopAt: string): { dir: string; names: Set<string> } | undefined {
  const file = findUp(["package.json"], start, stopAt);
  if (!file) return undefined;
  try {
    const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
    const names = new Set<string>();
    for (const field of DEPENDENCY_FIELDS) {
      const deps = pkg[field];
      if (deps && typeof deps === "object") for (const name of Object.keys(deps)) names.add(name);
    }
    return { dir: path.dirname(file), names };
  } catch {
    return undefined;
  }
}

/** Whether `node_modules/<name>` exists in `start` or an ancestor up to `stopAt` (as Node resolves it). */
function installed(name: string, start: string, stopAt: string): boolean {
  for (let d = start; isWithin(stopAt, d); d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, "node_modules", name, "package.json"))) return true;
    if (d === path.dirname(d)) break;
  }
  return false;
}

/** The install command of the project's package manager, by its lockfile (npm without one). */
export function installCommand(projectDir: string): string {
  const has = (f: string) => fs.existsSync(path.join(projectDir, f));
  if (has("pnpm-lock.yaml")) return "pnpm install";
  if (has("yarn.lock")) return "yarn install";
  if (has("bun.lock") || has("bun.lockb")) return "bun install";
  return "npm install";
}

/**
 * Of the packages named (a type-definitions name `node` stands for `@types/node` too), those the project
 * declares and has not installed; empty under Yarn Plug'n'Play (no node_modules by design).
 */
export function declaredButMissing(
  names: readonly string[],
  start: string,
  stopAt: string,
): { projectDir: string; missing: string[] } | undefined {
  const deps = declared(start, stopAt);
  if (!deps || fs.existsSync(path.join(deps.dir, ".pnp.cjs"))) return undefined;
  const missing = new Set<string>();
  for (const name of names) {
    const candidates = name.startsWith("@types/")
      ? [name]
      : [name, `@types/${name.replace(/^@/, "").replace("/", "__")}`];
    for (const c of candidates) if (deps.names.has(c) && !installed(c, deps.dir, stopAt)) missing.add(c);
  }
  return missing.size ? { projectDir: deps.dir, missing: [...missing].sort() } : undefined;
}

/** The error a tool gives when the project's declared packages are missing: install them first. */
export function notInstalledError(
  tool: string,
  found: { projectDir: string; missing: string[] },
  said: string,
  extra: Record<string, unknown> = {},
): ToolError {
  const list = found.missing.join(", ");
  return new ToolError(
    "tool_error",
    `the project's dependencies are not installed: ${path.join(found.projectDir, "package.json")} declares ${list}, ` +
      `which ${found.missing.length === 1 ? "is" : "are"} not in node_modules; run \`${installCommand(found.projectDir)}\` ` +
      `in ${found.projectDir}, then run ${tool} again (${tool} said: ${said})`,
    { missing_packages: found.missing, ...extra },
  );
}

/** The package an error message says cannot be found (`Cannot find package 'x'`, `Cannot find module 'x'`). */
export function packageNotFound(message: string): string | undefined {
  const m = /Cannot find (?:package|module) '([^']+)'/.exec(message);
  return m ? packageOf(m[1] as string) : undefined;
}

/** The packages tsc's diagnostics say are missing: TS2688 (type definitions) and TS2307 (modules). */
export function packagesTscMisses(findings: readonly { rule_id: string; message: string }[]): string[] {
  const out: string[] = [];
  for (const f of findings) {
    const m =
      f.rule_id === "TS2688"
        ? /Cannot find type definition file for '([^']+)'/.exec(f.message)
        : f.rule_id === "TS2307"
          ? /Cannot find module '([^']+)'/.exec(f.message)
          : null;
    const name = m ? packageOf(m[1] as string) : undefined;
    if (name) out.push(name);
  }
  return out;
}
