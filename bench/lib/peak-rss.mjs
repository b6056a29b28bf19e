// Runs a Node program in this process and prints its peak RSS on exit, so two checkers are measured
// the same way: `node peak-rss.mjs <script> [args...]`. .mjs scripts are imported, others loaded as CommonJS.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [, , script, ...args] = process.argv;
process.argv = [process.argv[0], script, ...args];
process.on("exit", () => {
  fs.writeSync(2, `\nPEAK_RSS_KB=${process.resourceUsage().maxRSS}\n`);
});
const file = path.resolve(script);
if (file.endsWith(".mjs")) await import(pathToFileURL(file).href);
else createRequire(import.meta.url)(file);
