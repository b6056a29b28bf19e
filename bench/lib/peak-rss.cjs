// Runs a Node program in this process and prints its peak RSS on exit, so two checkers can be
// measured the same way: `node peak-rss.cjs <script> [args...]`. ESM scripts are imported, others required.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { pathToFileURL } = require("node:url");

const [, , script, ...args] = process.argv;
process.argv = [process.argv[0], script, ...args];
process.on("exit", () => {
  fs.writeSync(2, `\nPEAK_RSS_KB=${process.resourceUsage().maxRSS}\n`);
});
if (script.endsWith(".mjs")) import(pathToFileURL(path.resolve(script)).href);
else require(path.resolve(script));
