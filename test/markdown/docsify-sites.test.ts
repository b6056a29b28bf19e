/**
 * Issue 39: a docsify site (lostisland/faraday's docs/) resolves its pages' links from the site's folder
 * (`adapters/index.md` from `docs/middleware/index.md` is `docs/adapters/index.md`), `/x.md` from the site
 * too, an extensionless route to its `.md` file and a folder to its README.md. Those links hold; links that
 * resolve neither from the file nor from the site stay broken, as do the same links outside a site, or in a
 * site that sets `relativePath: true`. Real files through the real server.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docsifySettings, docsifyTargets } from "../../src/adapters/markdown/docsify.js";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const INDEX = `<!DOCTYPE html><html><body><div id="app"></div>
<script>
  window.$docsify = { name: "Site", loadSidebar: true, subMaxLevel: 3 };
</script>
<script src="//cdn.jsdelivr.net/npm/docsify@4"></script></body></html>
`;

/** Links from a page two levels below the site: what each must give. */
const LINKS = [
  "[site-relative](adapters/index.md)",
  "[route](adapters/custom)",
  "[rooted](/adapters/index.md)",
  "[folder](adapters/)",
  "[file-relative](sibling.md)",
  "[missing](adapters/nope.md)",
];
const BROKEN_IN_SITE = ["adapters/nope.md"];
const BROKEN_OUTSIDE = [
  "adapters/index.md",
  "adapters/custom",
  "/adapters/index.md",
  "adapters/",
  "adapters/nope.md",
];

describe("docsify's link resolution", () => {
  it("reads a site's settings and where it looks for a link", () => {
    expect(docsifySettings(INDEX)).toEqual({ site: true, relativePath: false });
    expect(docsifySettings(INDEX.replace("subMaxLevel: 3", "relativePath: true"))).toEqual({
      site: true,
      relativePath: true,
    });
    expect(docsifySettings("<html><script>window.other = {}</script></html>").site).toBe(false);
    expect(docsifyTargets("/s", "a/b")).toEqual(["/s/a/b", "/s/a/b.md", "/s/a/b/README.md"]);
    expect(docsifyTargets("/s", "/a/b.md")).toEqual(["/s/a/b.md"]);
    expect(docsifyTargets("/s", "a/")).toEqual(["/s/a/README.md"]);
  });

  let dir: string;
  let server: Connected;
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  const brokenIn = async (file: string) => {
    const r = await server.call("check_markdown_links", { path: file, check_external: false });
    return (r.broken as { url: string; error: string }[]).map((b) => b.url);
  };

  beforeAll(async () => {
    dir = tempDir("mcq-docsify-");
    fs.mkdirSync(path.join(dir, ".git"));
    for (const site of ["docs", "relative-docs"]) {
      write(
        `${site}/index.html`,
        site === "docs" ? INDEX : INDEX.replace("subMaxLevel: 3", "relativePath: true"),
      );
      write(`${site}/adapters/index.md`, "# Adapters\n");
      write(`${site}/adapters/custom.md`, "# Custom\n");
      write(`${site}/adapters/README.md`, "# Adapters\n");
      write(`${site}/middleware/included/page.md`, LINKS.join("\n\n") + "\n");
      write(`${site}/middleware/included/sibling.md`, "# Sibling\n");
    }
    // The same page outside any site.
    write("notes/middleware/included/page.md", LINKS.join("\n\n") + "\n");
    write("notes/middleware/included/sibling.md", "# Sibling\n");
    server = await connectStdio({ args: ["--allowed-paths", dir, "--rate-limit", "false"], cwd: dir });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("holds what the site resolves from its folder, and reports what resolves nowhere", async () => {
    expect(await brokenIn("docs/middleware/included/page.md")).toEqual(BROKEN_IN_SITE);
  });

  it("outside a site, or in one with relativePath: true, links resolve from the file as on GitHub", async () => {
    expect(await brokenIn("notes/middleware/included/page.md")).toEqual(BROKEN_OUTSIDE);
    expect(await brokenIn("relative-docs/middleware/included/page.md")).toEqual(BROKEN_OUTSIDE);
  });
});
