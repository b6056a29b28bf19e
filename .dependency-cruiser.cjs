// `npm run lint` runs this: imports flow one way (shared/DESIGN.md: mcp/tools -> adapters, fix -> engine ->
// paths, config -> exec, errors; findings below the adapters), and no modules import each other.

/** Rules that keep the folder `from` (under src/) from importing any of the folders `above` it. */
function layer(from, above) {
  return above.map((to) => ({
    name: `${from}-not-${to}`,
    severity: "error",
    comment: `src/${from}/ is below src/${to}/ and must not import it`,
    from: { path: `^src/${from}/` },
    to: { path: `^src/${to}/` },
  }));
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Modules that import each other (type-only imports too: a shape belongs below both its users)",
      from: {},
      to: { circular: true },
    },
    // The flag parser and the help layout: node:util only, below every folder that parses a command line.
    ...layer("cli", [
      "config",
      "adapters",
      "engine",
      "mcp",
      "fix",
      "policy",
      "hooks",
      "check",
      "cache",
      "paths",
      "exec",
      "findings",
    ]),
    ...layer("config", ["adapters", "engine", "mcp", "fix", "policy", "hooks", "check"]),
    ...layer("findings", ["adapters", "engine", "mcp", "fix", "policy", "hooks", "check", "cache"]),
    ...layer("paths", ["adapters", "engine", "mcp", "fix", "policy", "hooks", "check", "cache", "findings"]),
    ...layer("exec", ["adapters", "engine", "mcp", "fix", "policy", "hooks", "check", "cache", "findings"]),
    ...layer("engine", ["adapters", "mcp", "fix", "hooks", "check"]),
    ...layer("adapters", ["mcp", "hooks", "check"]),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(node_modules|dist)/" },
  },
};
