/**
 * Pure helpers of check_markdown_links: did-you-mean for file names, reading the github.com remote
 * from a real `.git/config` layout, github.com link targets, and disable-comment positions.
 */
import { describe, expect, it } from "vitest";
import { findDirectives, isDisabled } from "../../src/adapters/markdown/directives.js";
import {
  githubLinkTarget,
  githubRemoteOf,
  parseGithubRemote,
} from "../../src/adapters/markdown/github-links.js";
import { suggestFileName, withFileName } from "../../src/adapters/markdown/suggest.js";

describe("suggestFileName", () => {
  const entries = ["guide.md", "README.md", "api.markdown", "Changelog.md", "images"];
  it("finds the .md of an .html page, case, missing extension, one edit or one swap", () => {
    expect(suggestFileName("guide.html", entries)).toBe("guide.md");
    expect(suggestFileName("api.htm", entries)).toBe("api.markdown");
    expect(suggestFileName("readme.md", entries)).toBe("README.md");
    expect(suggestFileName("changelog", entries)).toBe("Changelog.md");
    expect(suggestFileName("guid.md", entries)).toBe("guide.md");
    expect(suggestFileName("giude.md", entries)).toBe("guide.md");
    expect(suggestFileName("imgaes", entries)).toBe("images");
    expect(suggestFileName("tutorial.md", entries)).toBeUndefined();
  });
  it("writes the suggestion in the link's own form", () => {
    expect(withFileName("../docs/guide.html#x?y", "guide.md")).toBe("../docs/guide.md#x?y");
    expect(withFileName("docs/with%20spaces.md", "with space.md")).toBe("docs/with%20space.md");
  });
});

describe("github.com remotes and links", () => {
  it("reads origin first, in https, ssh and scp-like forms", () => {
    expect(parseGithubRemote("https://github.com/acme/widgets.git")).toEqual({
      owner: "acme",
      repo: "widgets",
    });
    expect(parseGithubRemote("ssh://git@github.com/acme/widgets")).toEqual({
      owner: "acme",
      repo: "widgets",
    });
    expect(parseGithubRemote("git@github.com:acme/widgets.js.git")).toEqual({
      owner: "acme",
      repo: "widgets.js",
    });
    expect(parseGithubRemote("https://gitlab.com/acme/widgets.git")).toBeUndefined();
    const config = [
      "[core]",
      "\trepositoryformatversion = 0",
      '[remote "upstream"]',
      "\turl = https://github.com/upstream/widgets.git",
      '[remote "origin"]',
      "\turl = git@github.com:me/widgets.git",
      "\tfetch = +refs/heads/*:refs/remotes/origin/*",
      '[branch "main"]',
      "\tremote = origin",
    ].join("\n");
    expect(githubRemoteOf(config)).toEqual({ owner: "me", repo: "widgets" });
  });
  it("maps blob, tree and raw links of the same repository to a path", () => {
    const repo = { owner: "me", repo: "widgets" };
    expect(githubLinkTarget("https://github.com/me/widgets/blob/main/docs/a.md#usage", repo)).toEqual({
      path: "docs/a.md",
      fragment: "usage",
    });
    expect(githubLinkTarget("https://github.com/ME/Widgets/tree/v1/docs", repo)).toEqual({
      path: "docs",
      fragment: undefined,
    });
    expect(githubLinkTarget("https://github.com/me/widgets/issues/1", repo)).toBeUndefined();
    expect(githubLinkTarget("https://github.com/me/other/blob/main/a.md", repo)).toBeUndefined();
  });
});

describe("disable comments", () => {
  it("are placed by line and column, and regions apply after the comment", () => {
    const d = findDirectives("<!-- markdown-link-check-disable -->", 4, 10);
    expect(d).toEqual([{ kind: "disable", line: 4, column: 10 }]);
    expect(isDisabled({ line: 4, column: 5 }, d)).toBe(false);
    expect(isDisabled({ line: 4, column: 50 }, d)).toBe(true);
    expect(isDisabled({ line: 9, column: 1 }, d)).toBe(true);
  });
});
