/**
 * The policy hook's own files: its bundles and start-up snapshot (dist/bundle), its compiled modules and
 * the policy bundle (dist/hook.js, dist/hooks, dist/policy), the shipped policy sources (policy/) and the
 * packages the bundled hook loads from node_modules at run time. A write to any of them changes what the
 * guard decides, so the edit policies protect them (`guard_file`) whoever asks: an agent's edit, or a
 * command's write (`cp x dist/bundle/hook.cjs`, `node --snapshot-blob … --build-snapshot x.js`).
 */
import path from "node:path";
import { PACKAGE_ROOT } from "../package-root.js";

const RUNTIME_PACKAGES = ["re2js", "zod", "yaml", "@secretlint", "web-tree-sitter", "tree-sitter-bash"];

/** Folders and files (absolute) that make up the guard. */
export const GUARD_PATHS: readonly string[] = [
  path.join(PACKAGE_ROOT, "dist", "bundle"),
  path.join(PACKAGE_ROOT, "dist", "hooks"),
  path.join(PACKAGE_ROOT, "dist", "policy"),
  path.join(PACKAGE_ROOT, "dist", "hook.js"),
  path.join(PACKAGE_ROOT, "policy"),
  ...RUNTIME_PACKAGES.map((p) => path.join(PACKAGE_ROOT, "node_modules", p)),
];

/** Whether an absolute path is (or is inside) one of the guard's own files or folders. */
export function isGuardFile(absolute: string, guard: readonly string[] = GUARD_PATHS): boolean {
  return guard.some((g) => absolute === g || absolute.startsWith(`${g}${path.sep}`));
}
