/**
 * The pure parts of the Markdown link checker: link extraction from real Markdown (the fixture
 * files), GitHub heading slugs, undefined references, link classification, and the reading of HTTP
 * failures and Retry-After.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anchorProblem, parseLineAnchor } from "../../src/adapters/markdown/anchors.js";
import { analyzeMarkdown } from "../../src/adapters/markdown/extract.js";
import { describeRequestError, retryAfterMs } from "../../src/adapters/markdown/http-errors.js";
import { classifyLink } from "../../src/adapters/markdown/link-target.js";
import { FIXTURES } from "../helpers/server.js";

const read = (rel: string) => fs.readFileSync(path.join(FIXTURES, "markdown", "links", rel), "utf8");

describe("analyzeMarkdown", () => {
  it("gives GitHub's heading anchors: duplicates numbered, punctuation and emoji dropped, HTML ids", () => {
    const { anchorIndex } = analyzeMarkdown(read("docs/guide.md"));
    expect([...anchorIndex.anchors]).toEqual([
      "guide",
      "installation--setup",
      "usage",
      "example",
      "usage-1",
      "example-1",
      "usage-2",
      "whats-new-v20",
      "-rocket-launch",
      "c--c-tips",
      "café",
      "custom-anchor",
      "box",
    ]);
    expect(anchorIndex.lineCount).toBe(32);
  });

  it("finds inline, reference, image, autolink and HTML links, but none in code or comments", () => {
    const { links } = analyzeMarkdown(read("README.md"));
    const urls = links.map((l) => l.url);
    expect(urls.filter((u) => u.includes("missing-in"))).toEqual([]);
    expect(links).toContainEqual({ url: "docs/images/logo.svg", line: 10, column: 13, kind: "image" });
    expect(links).toContainEqual({ url: "docs/api.md", line: 15, column: 9, kind: "html" });
    expect(links).toContainEqual({ url: "docs/images/logo.svg", line: 15, column: 43, kind: "html" });
    expect(links).toContainEqual({ url: "mailto:someone@example.com", line: 16, column: 21, kind: "link" });
    expect(links).toContainEqual({ url: "docs/with%20space.md", line: 14, column: 20, kind: "link" });
    expect(links).toContainEqual({ url: "docs/api.md#functions", line: 40, column: 1, kind: "definition" });
    // Each use of a definition is a link at the use, naming the definition's line.
    expect(links.filter((l) => l.kind === "reference")).toEqual([
      { url: "docs/guide.md", line: 11, column: 15, kind: "reference", definitionLine: 39 },
      { url: "docs/api.md#functions", line: 11, column: 49, kind: "reference", definitionLine: 40 },
      { url: "docs/guide.md", line: 11, column: 71, kind: "reference", definitionLine: 39 },
    ]);
    expect(links.filter((l) => l.kind === "undefined-reference")).toEqual([
      { url: "[nowhere]", line: 33, column: 25, kind: "undefined-reference" },
      { url: "[nothing-here]", line: 33, column: 45, kind: "undefined-reference" },
    ]);
  });

  it("reports full and collapsed references without a definition, not shortcuts or real links", () => {
    const source = [
      "[a][one] [b][] [shortcut] [x][b](real.md)",
      "[multi",
      "line][two] [ok][defined] [Defined][]",
      "",
      "`[code][three]`",
      "",
      "[defined]: target.md",
    ].join("\n");
    const undefinedRefs = analyzeMarkdown(source).links.filter((l) => l.kind === "undefined-reference");
    expect(undefinedRefs).toEqual([
      { url: "[one]", line: 1, column: 1, kind: "undefined-reference" },
      { url: "[b]", line: 1, column: 10, kind: "undefined-reference" },
      { url: "[two]", line: 2, column: 1, kind: "undefined-reference" },
    ]);
  });
});

describe("anchors", () => {
  const index = { anchors: new Set(["usage", "café"]), lineCount: 20 };
  it("matches GitHub's forms of a fragment", () => {
    expect(anchorProblem("usage", index)).toBeUndefined();
    expect(anchorProblem("Usage", index)).toBeUndefined();
    expect(anchorProblem("user-content-usage", index)).toBeUndefined();
    expect(anchorProblem("top", index)).toBeUndefined();
    expect(anchorProblem("L20", index)).toBeUndefined();
    expect(anchorProblem("L3-L7", index)).toBeUndefined();
    expect(anchorProblem("L21", index)).toBe("line 21 is past the end of the file (20 lines)");
    expect(anchorProblem("L7-L3", index)).toBe("invalid line anchor #L7-L3");
    expect(anchorProblem("nope", index, { where: "x.md" })).toBe("anchor #nope not found in x.md");
    expect(anchorProblem("nope", index, { headingsKnown: false })).toBeUndefined();
  });
  it("parses line anchors only", () => {
    expect(parseLineAnchor("L10")).toEqual([10, 10]);
    expect(parseLineAnchor("L10-L20")).toEqual([10, 20]);
    expect(parseLineAnchor("L10-20")).toBeUndefined();
    expect(parseLineAnchor("l10")).toBeUndefined();
  });
});

describe("classifyLink", () => {
  it("separates external, local, fragment and other schemes", () => {
    expect(classifyLink("https://example.com/a#b")).toEqual({
      kind: "external",
      url: "https://example.com/a#b",
    });
    expect(classifyLink("//cdn.example.com/x")).toEqual({
      kind: "external",
      url: "https://cdn.example.com/x",
    });
    expect(classifyLink("mailto:a@b.c")).toEqual({ kind: "skipped", scheme: "mailto" });
    expect(classifyLink("#Intro")).toEqual({ kind: "fragment", fragment: "Intro" });
    expect(classifyLink("docs/a%20b.md?plain=1#L3")).toEqual({
      kind: "local",
      filePath: "docs/a b.md",
      fragment: "L3",
      rooted: false,
    });
    expect(classifyLink("/docs/x.md")).toEqual({
      kind: "local",
      filePath: "/docs/x.md",
      fragment: undefined,
      rooted: true,
    });
  });
});

describe("HTTP failures", () => {
  // The shape of Node's fetch failures: a TypeError whose cause carries the system error code.
  const fetchFailure = (code: string, message: string) =>
    new TypeError("fetch failed", { cause: Object.assign(new Error(message), { code }) });

  it("names the failure class", () => {
    expect(
      describeRequestError(fetchFailure("ENOTFOUND", "getaddrinfo ENOTFOUND x.invalid"), "x.invalid"),
    ).toBe("DNS lookup failed for x.invalid (ENOTFOUND)");
    expect(describeRequestError(fetchFailure("CERT_HAS_EXPIRED", "certificate has expired"), "h")).toBe(
      "TLS error: certificate has expired (CERT_HAS_EXPIRED)",
    );
    expect(describeRequestError(fetchFailure("ECONNRESET", "socket hang up"), "h:1")).toBe(
      "connection reset by h:1 (ECONNRESET)",
    );
    expect(describeRequestError(new Error("odd"), "h")).toBe("request failed: odd");
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("120")).toBe(120_000);
    expect(retryAfterMs("Wed, 21 Oct 2015 07:28:10 GMT", Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(
      10_000,
    );
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});
