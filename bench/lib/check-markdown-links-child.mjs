// Child process for the benchmark: runs our checker (from dist/, or from the build named by MCQ_DIST,
// e.g. a build of main for a before/after comparison) on a tree and prints the summary as JSON.
import path from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.env.MCQ_DIST ?? new URL("../../dist/", import.meta.url).pathname;
const load = (rel) => import(pathToFileURL(path.join(dist, rel)).href);
const { checkMarkdownLinks } = await load("adapters/markdown/checker.js");
const { Allowlist } = await load("paths/allowlist.js");

const [root] = process.argv.slice(2);
const allowlist = new Allowlist([root], root);
const report = await checkMarkdownLinks({
  target: allowlist.resolve(root),
  allowlist,
  checkExternal: false,
  timeoutMs: 10_000,
  concurrent: 10,
  ignorePatterns: [],
  exclude: [],
  skipAnchors: false,
  displayBase: root,
});
process.stdout.write(
  JSON.stringify({
    files: report.filesChecked,
    links: report.totalLinks,
    broken: report.brokenLinks,
    heapMb: Math.round(process.memoryUsage().heapUsed / 1024 / 1024),
  }) + "\n",
);
