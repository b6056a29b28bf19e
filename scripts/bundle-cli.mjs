// Part of `npm run build`: bundles the command line (dist/main.js and our modules it imports) into
// dist/bundle/cli.mjs (and the git hook into dist/bundle/pre-commit.mjs), which dist/cli.js and dist/eslint-typescript-mcp.js load when it is there
// (src/start.ts). Packages stay external (node_modules as installed). Split at every dynamic import, so
// what a command loads lazily (the HTTP server, the hooks, the tools) stays lazy, with the packages it
// imports. Worker scripts stay separate files in dist/, named from the package root (src/package-root.ts).
import fs from "node:fs";
import { build } from "esbuild";
import { finishSnapshotSource, SNAPSHOT_SOURCE, webTreeSitterCjs } from "./snapshot-source.mjs";

const outdir = "dist/bundle";
// Chunk names carry a hash: a rebuild must not leave a stale chunk the new entry could load.
fs.rmSync(`${outdir}/cli`, { recursive: true, force: true });
await build({
  // The git pre-commit hook's own entry (dist/hook.js loads it), sharing the chunks of the command line.
  entryPoints: { cli: "dist/main.js", "pre-commit": "dist/hooks/pre-commit.js" },
  outdir,
  outExtension: { ".js": ".mjs" },
  chunkNames: "cli/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  legalComments: "none",
  logLevel: "warning",
});

// The command line with every package inside, in one CommonJS file (dist/bundle/cli-snapshot.cjs), and its
// V8 start-up snapshot for this Node (src/cli-snapshot.ts, src/cli-snapshot-blob.ts), which
// bin/mcp-code-quality runs for `check`. A deserialized snapshot has no dynamic import(): esbuild turns each
// import() into a require() of the bundled module. Beside hook.cjs, at the same depth under the package, so
// paths resolved from the package root hold.
await build({
  entryPoints: ["dist/cli-snapshot.js"],
  outfile: "dist/bundle/cli-snapshot.cjs",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  banner: { js: 'const __cliUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { "import.meta.url": "__cliUrl" },
  supported: { "dynamic-import": false },
  plugins: [webTreeSitterCjs],
  legalComments: "none",
  logLevel: "warning",
  ...SNAPSHOT_SOURCE,
});
finishSnapshotSource("dist/bundle/cli-snapshot.cjs");
// A fresh `check`'s first step (src/check/answer/replay.ts): node's modules only, so it starts in
// about the time of `node -e 0`.
await build({
  entryPoints: ["dist/check/answer/replay-main.js"],
  outfile: "dist/bundle/check-replay.cjs",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  legalComments: "none",
  logLevel: "warning",
});
const { buildCliSnapshotBlob } = await import("../dist/cli-snapshot-blob.js");
const why = buildCliSnapshotBlob();
if (why) console.warn(`bundle-cli: ${why}`);
