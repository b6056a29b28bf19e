/**
 * xo 1.0 and later, run as xo's CLI runs it with no flags but `--fix` (xo 1.x dist/cli.js: the same `Xo` options),
 * and printing ESLint's results as JSON on stdout (what `--reporter=json` prints): `node xo-run.js <xo package
 * dir> lint|fix [patterns...]` in the project. A fix hands back each fixed file's `output` (and the problems
 * left) where xo's CLI would call `Xo.outputFixes` and write them: the server writes them inside the fixing
 * tool's transaction. xo's generated tsconfig goes to CACHE_DIR (xo-folder.ts), with its caches.
 */
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { moveFolder } from "./xo-folder.js";

/** The file `import("xo")` loads: package.json `exports` (a string, or its "." import/default), else main. */
function entryOf(dir: string): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
    exports?: unknown;
    main?: string;
  };
  let e: unknown = pkg.exports;
  if (e && typeof e === "object" && "." in e) e = (e as Record<string, unknown>)["."];
  if (e && typeof e === "object")
    e = (e as Record<string, unknown>).import ?? (e as Record<string, unknown>).default;
  return path.resolve(dir, typeof e === "string" ? e : (pkg.main ?? "index.js"));
}

type XoClass = new (
  linterOptions: Record<string, unknown>,
  baseXoConfig: Record<string, unknown>,
) => { lintFiles(globs: string[]): Promise<{ results: unknown[] }> };

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const [dir, mode, ...patterns] = process.argv.slice(2);
if (!dir || (mode !== "lint" && mode !== "fix"))
  fail("usage: xo-run.js <xo package dir> lint|fix [patterns...]");
const cacheDir = process.env.CACHE_DIR;
if (!cacheDir) fail("xo-run.js: CACHE_DIR is not set");
moveFolder(
  path.join(process.cwd(), "node_modules", ".cache", "xo-linter"),
  path.join(cacheDir, "xo-generated"),
);

const mod = (await import(pathToFileURL(entryOf(dir)).href)) as { Xo?: XoClass };
if (typeof mod.Xo !== "function") fail(`xo at ${dir} has no Xo class (xo 1.0 or later is needed)`);
const xo = new mod.Xo(
  { fix: mode === "fix", cwd: process.cwd(), quiet: undefined, ts: true, configPath: undefined },
  { space: undefined, semicolon: undefined, prettier: undefined, ignores: undefined, react: false },
);
const report = await xo.lintFiles(patterns);
process.stdout.write(JSON.stringify(report.results));
