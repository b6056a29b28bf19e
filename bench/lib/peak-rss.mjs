// Runs a Node program in this process and prints its peak RSS on exit, so two checkers are measured
// the same way: `node peak-rss.mjs <script> [args...]`. .mjs scripts are imported, others loaded as CommonJS.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [, , script, ...args] = process.argv;
process.argv = [process.argv[0], script, ...args];
// VmHWM is this process image's own high-water mark. getrusage's maxRSS is not: Linux carries the
// parent's peak across fork and exec, so a child of a large bench process would report the parent's size.
function peakRssKb() {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) : process.resourceUsage().maxRSS;
}
process.on("exit", () => {
  const cpu = process.cpuUsage();
  fs.writeSync(2, `\nPEAK_RSS_KB=${peakRssKb()}\nCPU_MS=${Math.round((cpu.user + cpu.system) / 1000)}\n`);
});
const file = path.resolve(script);
if (file.endsWith(".mjs")) await import(pathToFileURL(file).href);
else createRequire(import.meta.url)(file);
