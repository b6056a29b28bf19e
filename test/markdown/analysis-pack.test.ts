/**
 * The Markdown analyses a check keeps (src/adapters/markdown/analysis-memo.ts): one entry for the tree
 * checked, not one per file, read by the next server process; a run that parsed nothing leaves it as it
 * was, and an edit parses that file alone.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const made: string[] = [];

afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** The result cache's entries that hold Markdown analyses (their anchors' line counts give them away). */
function analysisEntries(cacheHome: string): string[] {
  const root = path.join(cacheHome, "mcp-code-quality", "results", "v1");
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .flatMap((shard) => fs.readdirSync(path.join(root, shard)).map((name) => path.join(root, shard, name)))
    .filter((file) => fs.readFileSync(file, "utf8").includes('"lineCount":'));
}

/** check_markdown_links on `project` from a server process of its own, over `cacheHome`. */
async function checkOnce(project: string, cacheHome: string): Promise<Record<string, unknown>> {
  const server = await connectStdio({
    args: ["--allowed-paths", project, "--rate-limit", "false", "--result-cache", "true"],
    env: { XDG_CACHE_HOME: cacheHome },
  });
  try {
    return await server.call("check_markdown_links", { path: project, check_external: false });
  } finally {
    await server.close();
  }
}

describe("the Markdown analyses in the result cache", () => {
  it("are one entry for the tree, served to the next process, written again only after an edit", async () => {
    const project = tempDir("mcq-analyses-");
    const cacheHome = tempDir("mcq-analyses-xdg-");
    made.push(project, cacheHome);
    fs.mkdirSync(path.join(project, "docs"));
    fs.writeFileSync(path.join(project, "README.md"), "# Top\n\nSee [setup](docs/guide.md#setup).\n");
    fs.writeFileSync(
      path.join(project, "docs", "guide.md"),
      "# Guide\n\n## Setup\n\n[Up](../README.md#top)\n",
    );
    fs.writeFileSync(path.join(project, "docs", "other.md"), "# Other\n\n[Gone](missing.md)\n");

    const first = await checkOnce(project, cacheHome);
    expect(first.cached).toBe("0 of 3 files");
    const entries = analysisEntries(cacheHome);
    expect(entries).toHaveLength(1);
    // A write renames a new file into place: the same inode means it was not written again (a hit only
    // touches its mtime).
    const written = fs.statSync(entries[0] as string).ino;

    const again = await checkOnce(project, cacheHome);
    expect(again.cached).toBe("3 of 3 files");
    expect({ ...again, cached: undefined, duration_ms: undefined }).toEqual({
      ...first,
      cached: undefined,
      duration_ms: undefined,
    });
    expect(analysisEntries(cacheHome)).toEqual(entries);
    expect(fs.statSync(entries[0] as string).ino).toBe(written);

    fs.appendFileSync(path.join(project, "docs", "other.md"), "\n[Also gone](nowhere.md)\n");
    const edited = await checkOnce(project, cacheHome);
    expect(edited.cached).toBe("2 of 3 files");
    expect(edited.broken_count).toBe((first.broken_count as number) + 1);
    expect(analysisEntries(cacheHome)).toHaveLength(1);
    const after = await checkOnce(project, cacheHome);
    expect(after.cached).toBe("3 of 3 files");
  }, 60_000);
});
