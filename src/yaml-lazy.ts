/**
 * The `yaml` package, loaded on first use: a check or a hook decision that reads no YAML file (no
 * project config, no project policy, no RuboCop config) does not load its ~70 modules. The same
 * CommonJS build an `import` resolves to under Node ("node" export).
 */
import { createRequire } from "node:module";

type Yaml = typeof import("yaml");
let loaded: Yaml | undefined;

export function yaml(): Yaml {
  loaded ??= createRequire(import.meta.url)("yaml") as Yaml;
  return loaded;
}

/**
 * The package already loaded (the command line's start-up snapshot bundles it, src/cli-snapshot.ts): a
 * fresh check that reads a .rubocop.yml or a .golangci.yml then compiles none of its modules at run time.
 */
export function provideYaml(module: Yaml): void {
  loaded = module;
}
