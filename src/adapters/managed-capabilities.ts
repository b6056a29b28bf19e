/**
 * What each managed tool may do, for tool_capabilities: network, git, what it writes, whether it runs the
 * project's own code. Keyed by the names the registries use (linters, formatters, type checkers, test
 * runners, fixers, external programs); test/policy/tool-capabilities.test.ts fails when a registered tool has
 * no entry here, so the list cannot fall behind the registries unseen.
 */
import { externalTools } from "./registry.js";
import { fixerNames } from "./fixers.js";
import { formatterNames } from "./formatters.js";
import { linterNames } from "./linters.js";
import { testRunnerNames } from "./test-runners.js";
import { typeCheckerNames } from "./type-checkers.js";

export { MANAGED_TOOL_FACTS, type ToolSandboxFacts } from "../exec/sandbox/tool-facts.js";

/** Every managed tool the registries know, with the roles it has there. */
export function managedTools(): { name: string; roles: string[] }[] {
  const roles = new Map<string, Set<string>>();
  const add = (names: readonly string[], role: string) => {
    for (const name of names) {
      if (!roles.has(name)) roles.set(name, new Set());
      roles.get(name)?.add(role);
    }
  };
  add(linterNames(), "linter");
  add(formatterNames(), "formatter");
  add(typeCheckerNames(), "type-checker");
  add(testRunnerNames(), "test-runner");
  add(fixerNames(), "fixer");
  // Sorted: adapters register their programs as their modules load, and the load order differs between
  // entry points (lazy imports), so the registry's own order is not stable.
  add(
    externalTools()
      .map((t) => t.name)
      .sort(),
    "program",
  );
  add(["git"], "program");
  return [...roles].map(([name, set]) => ({ name, roles: [...set] }));
}
