/**
 * Starts the command line for an entry file (dist/cli.js, dist/eslint-typescript-mcp.js): from the
 * bundle `npm run build` makes (dist/bundle/cli.mjs, scripts/bundle-cli.mjs) when it is there, else from
 * the modules (under a test runner, or after tsc alone). The bundle is a few files to load instead of
 * some 600 modules, most of a fresh process's start-up.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";

type Main = typeof import("./main.js");

// Next to this module: it is never bundled itself (nothing the bundle holds imports it).
const BUNDLE = new URL("./bundle/cli.mjs", import.meta.url);

export async function start(argv: string[], entryUrl: string): Promise<void> {
  const main = (fs.existsSync(BUNDLE) ? await import(BUNDLE.href) : await import("./main.js")) as Main;
  main.run(argv, fileURLToPath(entryUrl));
}
