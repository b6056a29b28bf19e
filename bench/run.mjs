// `npm run bench [-- name ...]`: runs every bench/*.bench.mjs (or those whose file name starts with a
// given name: `npm run bench -- js core`) in turn and prints its table.
// Each bench module exports `default async function run(): Promise<{ title, rows: object[] , notes?: string[] }>`.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".bench.mjs"))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();
for (const file of files) {
  const mod = await import(pathToFileURL(path.join(dir, file)).href);
  process.stderr.write(`\n== ${file}\n`);
  const report = await mod.default();
  console.log(`\n## ${report.title}\n`);
  console.table(report.rows);
  for (const n of report.notes ?? []) console.log(`- ${n}`);
}
