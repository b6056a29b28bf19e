/**
 * A registry of adapters by name, in registration order (the first one registered under a name is the one
 * found): the linters', fixers' and type checkers' registries are each one of these, filled as their adapter
 * modules load.
 */
export function namedRegistry<T extends { name: string }>(): {
  register(adapter: T): void;
  names(): string[];
  find(name: string): T | undefined;
} {
  const adapters: T[] = [];
  return {
    register: (adapter) => void adapters.push(adapter),
    names: () => adapters.map((a) => a.name),
    find: (name) => adapters.find((a) => a.name === name),
  };
}
