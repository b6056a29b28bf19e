/**
 * Reads one Markdown document into what the checker needs: its links (with line numbers) and the
 * anchors it offers. Parsing is micromark/mdast with GFM, so code spans and fenced code never yield
 * links, and reference links resolve exactly as CommonMark says (dialect: syntax.ts).
 */
import GithubSlugger from "github-slugger";
import type { Nodes, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import type { AnchorIndex } from "./anchors.js";
import { scanHtml } from "./html.js";
import { mdastExtensions, micromarkExtensions } from "./syntax.js";
import { findUndefinedReferences, type OffsetRange } from "./undefined-references.js";

export type LinkKind = "link" | "image" | "definition" | "html" | "undefined-reference";

export interface ExtractedLink {
  /** The destination as parsed (for `undefined-reference`: the reference label, e.g. `[api]`). */
  url: string;
  /** 1-based line of the link. */
  line: number;
  kind: LinkKind;
}

export interface MarkdownDocument {
  links: ExtractedLink[];
  anchorIndex: AnchorIndex;
}

/** Parses Markdown source into its links and anchors. */
export function analyzeMarkdown(source: string): MarkdownDocument {
  const tree: Root = fromMarkdown(source, { extensions: micromarkExtensions, mdastExtensions });
  const links: ExtractedLink[] = [];
  const anchors = new Set<string>();
  const slugger = new GithubSlugger();
  const linkRanges: OffsetRange[] = [];
  const definitions = new Set<string>();
  // Unresolved `[text][label]` stays text containing "][": only then is the second parse needed.
  let bracketPairInText = false;

  const visit = (node: Nodes): void => {
    const line = node.position?.start.line ?? 1;
    switch (node.type) {
      case "text":
        if (!bracketPairInText && node.value.includes("][")) bracketPairInText = true;
        break;
      case "link":
      case "image":
        links.push({ url: node.url, line, kind: node.type });
        rangeOf(node, linkRanges);
        break;
      case "linkReference":
      case "imageReference":
        rangeOf(node, linkRanges);
        break;
      case "definition":
        links.push({ url: node.url, line, kind: "definition" });
        definitions.add(node.identifier.toLowerCase());
        rangeOf(node, linkRanges);
        break;
      case "heading":
        anchors.add(slugger.slug(headingText(node)));
        break;
      case "html": {
        const scan = scanHtml(node.value);
        for (const l of scan.links) links.push({ url: l.url, line: line + l.lineOffset, kind: "html" });
        for (const a of scan.anchors) anchors.add(a.toLowerCase());
        break;
      }
      case "footnoteDefinition":
        anchors.add(`fn-${node.identifier.toLowerCase()}`);
        break;
      case "footnoteReference":
        anchors.add(`fnref-${node.identifier.toLowerCase()}`);
        break;
    }
    if ("children" in node) for (const child of node.children) visit(child);
  };
  visit(tree);

  // `[text][missing]` is plain text to CommonMark; a second look finds such references.
  if (bracketPairInText) {
    for (const ref of findUndefinedReferences(source, definitions, linkRanges))
      links.push({ url: `[${ref.label}]`, line: ref.line, kind: "undefined-reference" });
  }
  links.sort((a, b) => a.line - b.line);
  return { links, anchorIndex: { anchors, lineCount: countLines(source) } };
}

function rangeOf(node: Nodes, ranges: OffsetRange[]): void {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (start !== undefined && end !== undefined) ranges.push([start, end]);
}

/**
 * The text GitHub slugs a heading from: its rendered text content, so inline code counts, while HTML
 * tags and image alt text do not.
 */
export function headingText(node: Nodes): string {
  switch (node.type) {
    case "text":
    case "inlineCode":
      return node.value;
    case "html":
    case "image":
    case "imageReference":
    case "footnoteReference":
      return "";
    default:
      return "children" in node ? node.children.map((c) => headingText(c)).join("") : "";
  }
}

/** Lines as an editor counts them: a trailing newline does not start another line. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  return text.endsWith("\n") ? lines - 1 : lines;
}
