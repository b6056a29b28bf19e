// Child process for the benchmark: runs our checker (from dist/) on a tree and prints the summary as JSON.
import { checkMarkdownLinks } from "../../dist/adapters/markdown/checker.js";
import { Allowlist } from "../../dist/paths/allowlist.js";

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
  }) + "\n",
);
