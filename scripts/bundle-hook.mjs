// Part of `npm run build`: bundles the Claude Code hook (dist/hooks/claude-code-entry.js and what it
// imports, packages included) into one CommonJS file, dist/bundle/hook.cjs, the command that
// `hook install claude-code` writes. One file instead of ~60 ES modules is most of a decision's start-up.
// It sits at depth 2 under the package, like dist/policy/*.js, so paths resolved from the module hold.
import { build } from "esbuild";

await build({
  entryPoints: ["dist/hooks/claude-code-entry.js"],
  outfile: "dist/bundle/hook.cjs",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  // Loaded on demand from node_modules: re2js by require(), the rest only for a project policy file (yaml,
  // zod) or an edit (secretlint), so a Bash decision does not parse them.
  external: ["re2js", "zod", "yaml", "@secretlint/*"],
  banner: { js: 'const __hookUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { "import.meta.url": "__hookUrl" },
  legalComments: "none",
  logLevel: "warning",
});
