/**
 * ESLint wrappers a project may lint with instead of an eslint.config.* (sindresorhus/ky: xo, `"test":
 * "xo && npm run build && ava"`): their rules, plugins and ignores are their own, so the bundled default
 * config's findings are not theirs (on ky: 140 findings against xo's 11, rules "not found", directives xo
 * needs called unused). This server does not run them; lint says so. Pure.
 */

/** The wrappers, by the package that provides the command. */
const WRAPPERS = ["xo", "standard", "ts-standard", "semistandard"] as const;

interface Manifest {
  scripts?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
}

/** The wrapper a package.json lints with, and how it says so; undefined for none. */
export function eslintWrapperOf(pkg: Manifest | undefined): { name: string; why: string } | undefined {
  if (!pkg) return undefined;
  for (const name of WRAPPERS) {
    const why: string[] = [];
    if (pkg.devDependencies?.[name] !== undefined || pkg.dependencies?.[name] !== undefined)
      why.push(`depends on ${name}`);
    if ((pkg as Record<string, unknown>)[name] !== undefined) why.push(`has an "${name}" config`);
    const script = Object.entries(pkg.scripts ?? {}).find(
      ([, command]) =>
        typeof command === "string" && new RegExp(`(^|[\\s&|;(])${name}($|[\\s&|;)])`).test(command),
    );
    if (script) why.push(`its ${script[0]} script runs ${name}`);
    if (why.length) return { name, why: why.join(", ") };
  }
  return undefined;
}
