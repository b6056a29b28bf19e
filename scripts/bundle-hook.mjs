// Part of `npm run build`: bundles the Claude Code hook (dist/hooks/claude-code-entry.js and what it
// imports, packages included) into one CommonJS file, dist/bundle/hook.cjs, the command that
// `hook install claude-code` writes. One file instead of ~60 ES modules is most of a decision's start-up.
// It sits at depth 2 under the package, like dist/policy/*.js, so paths resolved from the module hold.
//
// Then the same hook with every package inside (dist/bundle/hook-snapshot.cjs) and its V8 start-up
// snapshot for this Node (src/hooks/hook-snapshot.ts), which the installed command line runs first.
import { build } from "esbuild";
import { finishSnapshotSource, SNAPSHOT_SOURCE, webTreeSitterCjs } from "./snapshot-source.mjs";

/** Leaves the package `name` itself to node_modules but bundles its subpaths (`zod/mini`). */
function onlyPackageRootExternal(name) {
  return {
    name: `external-${name}-root`,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${name}$`) }, (args) => ({ path: args.path, external: true }));
    },
  };
}

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  banner: { js: 'const __hookUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { "import.meta.url": "__hookUrl" },
  legalComments: "none",
  logLevel: "warning",
};

await build({
  ...common,
  entryPoints: ["dist/hooks/claude-code-entry.js"],
  outfile: "dist/bundle/hook.cjs",
  // Loaded on demand from node_modules: re2js by require(), the rest only for a project policy file (yaml,
  // zod) or an edit (secretlint), so a Bash decision does not parse them. zod/mini (the payload's schemas,
  // read on every decision) is bundled: `external: ["zod"]` would keep its subpaths out too.
  external: ["re2js", "yaml", "@secretlint/*"],
  plugins: [onlyPackageRootExternal("zod")],
});

// A snapshot cannot run a package's file from node_modules: everything is in the bundle, and loading it
// costs nothing at run time since the heap is deserialized, not parsed.
await build({
  ...common,
  entryPoints: ["dist/hooks/claude-code-snapshot.js"],
  outfile: "dist/bundle/hook-snapshot.cjs",
  plugins: [webTreeSitterCjs],
  supported: { "dynamic-import": false },
  ...SNAPSHOT_SOURCE,
});
finishSnapshotSource("dist/bundle/hook-snapshot.cjs");

// The git hook's client of the check daemon (`node dist/hook.js pre-commit --daemon`), one file instead of a
// dozen modules: it starts on every commit.
await build({
  ...common,
  entryPoints: ["dist/hooks/daemon-client.js"],
  outfile: "dist/bundle/hook-daemon-client.mjs",
  format: "esm",
  banner: {},
  define: {},
});

const { ensureSnapshotBlob } = await import("../dist/hooks/hook-snapshot.js");
const { blob, reason } = ensureSnapshotBlob();
if (!blob) console.warn(`bundle-hook: ${reason}`);
