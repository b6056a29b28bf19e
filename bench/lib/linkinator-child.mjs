// Child process for the benchmark: linkinator on a local tree of Markdown files, offline (external links
// skipped, fragments checked), printing how many broken links it found.
import { LinkChecker } from "linkinator";

const [root] = process.argv.slice(2);
const checker = new LinkChecker();
const result = await checker.check({
  path: "**/*.md",
  serverRoot: root,
  recurse: true,
  markdown: true,
  checkFragments: true,
  directoryListing: true,
  concurrency: 10,
  linksToSkip: async (link) =>
    /^https?:\/\//.test(link) && !/^https?:\/\/(localhost|127\.0\.0\.1)[:/]/.test(link),
});
const broken = result.links.filter((l) => l.state === "BROKEN");
process.stdout.write(JSON.stringify({ links: result.links.length, broken: broken.length }) + "\n");
