/**
 * Reads one Markdown document into what the checker needs: its links (with line numbers) and the
 * anchors it offers. Parsing is micromark (CommonMark plus the GFM parts in syntax.ts), so code spans
 * and fenced code never yield links and reference links resolve exactly as CommonMark says. The
 * parser's token stream is read directly: building an mdast tree would double the cost and the garbage.
 */
import GithubSlugger from "github-slugger";
import { parse, postprocess, preprocess } from "micromark";
import { decodeString } from "micromark-util-decode-string";
import { normalizeIdentifier } from "micromark-util-normalize-identifier";
import type { AnchorIndex } from "./anchors.js";
import { scanHtml } from "./html.js";
import { micromarkExtensions } from "./syntax.js";
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

/** Parts of a heading that are not its text content on GitHub (destinations, images, tags, footnotes). */
const NOT_HEADING_TEXT = new Set(["resource", "reference", "image", "htmlText", "gfmFootnoteCall"]);

interface OpenLink {
  kind: "link" | "image";
  line: number;
  url?: string;
  hasResource: boolean;
}

interface OpenDefinition {
  line: number;
  label: string;
  url: string;
}

/** Parses Markdown source into its links and anchors. */
export function analyzeMarkdown(source: string): MarkdownDocument {
  const events = postprocess(
    parse({ extensions: micromarkExtensions })
      .document()
      .write(preprocess()(source, undefined, true)),
  );
  const links: ExtractedLink[] = [];
  const anchors = new Set<string>();
  const slugger = new GithubSlugger();
  const linkRanges: OffsetRange[] = [];
  const definitions = new Set<string>();
  const openLinks: OpenLink[] = [];
  let definition: OpenDefinition | undefined;
  let heading: { text: string; collecting: boolean; skipDepth: number } | undefined;
  let html: { line: number; chunks: string[] } | undefined;
  let referencesFormed = 0;

  for (const [kind, token, context] of events) {
    const type = token.type;
    if (kind === "exit") {
      switch (type) {
        case "link":
        case "image": {
          const open = openLinks.pop();
          linkRanges.push([token.start.offset, token.end.offset]);
          if (open?.hasResource) links.push({ url: open.url ?? "", line: open.line, kind: open.kind });
          break;
        }
        case "definition":
          if (definition) {
            links.push({ url: definition.url, line: definition.line, kind: "definition" });
            definitions.add(normalizeIdentifier(definition.label).toLowerCase());
            linkRanges.push([token.start.offset, token.end.offset]);
            definition = undefined;
          }
          break;
        case "atxHeadingText":
        case "setextHeadingText":
          if (heading) heading.collecting = false;
          break;
        case "atxHeading":
        case "setextHeading":
          anchors.add(slugger.slug(heading?.text ?? ""));
          heading = undefined;
          break;
        case "htmlFlow":
        case "htmlText":
          if (html) {
            const scan = scanHtml(html.chunks.join(""));
            for (const l of scan.links)
              links.push({ url: l.url, line: html.line + l.lineOffset, kind: "html" });
            for (const a of scan.anchors) anchors.add(a.toLowerCase());
            html = undefined;
          }
          break;
      }
      if (heading && heading.skipDepth > 0 && NOT_HEADING_TEXT.has(type)) heading.skipDepth--;
      continue;
    }

    // Heading text: what GitHub's slug is made from (text, code, decoded escapes and references).
    if (heading?.collecting) {
      if (NOT_HEADING_TEXT.has(type)) heading.skipDepth++;
      else if (heading.skipDepth === 0) heading.text += headingTextOf(type, context.sliceSerialize(token));
    }
    switch (type) {
      case "link":
      case "image":
        openLinks.push({ kind: type, line: token.start.line, hasResource: false });
        break;
      case "resource": {
        const open = openLinks[openLinks.length - 1];
        if (open) open.hasResource = true;
        break;
      }
      case "resourceDestinationString": {
        const open = openLinks[openLinks.length - 1];
        if (open) open.url = decodeString(context.sliceSerialize(token));
        break;
      }
      case "reference":
        referencesFormed++;
        break;
      case "definition":
        definition = { line: token.start.line, label: "", url: "" };
        break;
      case "definitionLabelString":
        if (definition) definition.label = context.sliceSerialize(token);
        break;
      case "definitionDestinationString":
        if (definition) definition.url = decodeString(context.sliceSerialize(token));
        break;
      case "autolinkProtocol":
      case "literalAutolinkHttp":
        links.push({ url: context.sliceSerialize(token), line: token.start.line, kind: "link" });
        break;
      case "autolinkEmail":
      case "literalAutolinkEmail":
        links.push({ url: `mailto:${context.sliceSerialize(token)}`, line: token.start.line, kind: "link" });
        break;
      case "literalAutolinkWww":
        links.push({ url: `http://${context.sliceSerialize(token)}`, line: token.start.line, kind: "link" });
        break;
      case "atxHeading":
      case "setextHeading":
        heading = { text: "", collecting: false, skipDepth: 0 };
        break;
      case "atxHeadingText":
      case "setextHeadingText":
        if (heading) heading.collecting = true;
        break;
      case "htmlFlow":
      case "htmlText":
        html = { line: token.start.line, chunks: [] };
        break;
      case "htmlFlowData":
      case "htmlTextData":
        html?.chunks.push(context.sliceSerialize(token));
        break;
      case "lineEnding":
        // Line endings inside HTML are kept so that tags spanning lines get the right line numbers.
        html?.chunks.push("\n");
        break;
      case "gfmFootnoteDefinitionLabelString":
        anchors.add(`fn-${normalizeIdentifier(context.sliceSerialize(token)).toLowerCase()}`);
        break;
      case "gfmFootnoteCallString":
        anchors.add(`fnref-${normalizeIdentifier(context.sliceSerialize(token)).toLowerCase()}`);
        break;
    }
  }

  // `[text][missing]` is plain text to CommonMark; a second look finds such references, needed only
  // when the source has more `][` than references that formed.
  if (countOccurrences(source, "][") > referencesFormed) {
    for (const ref of findUndefinedReferences(source, definitions, linkRanges))
      links.push({ url: `[${ref.label}]`, line: ref.line, kind: "undefined-reference" });
  }
  links.sort((a, b) => a.line - b.line);
  return { links, anchorIndex: { anchors, lineCount: countLines(source) } };
}

/** The text a heading token contributes to the heading's text content. */
function headingTextOf(type: string, raw: string): string {
  switch (type) {
    case "data":
    case "codeTextData":
    case "characterEscapeValue":
    case "literalAutolink":
      return raw;
    case "characterReference":
      return decodeString(raw);
    case "lineEnding":
      return "\n";
    default:
      return "";
  }
}

function countOccurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** Lines as an editor counts them: a trailing newline does not start another line. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  return text.endsWith("\n") ? lines - 1 : lines;
}
