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
import { findDirectives, isDisabled, type Directive } from "./directives.js";
import { scanHtml } from "./html.js";
import { fencesConfirmed, reduceMarkdown, type ReducedSource } from "./prose-reduction.js";
import { extensionsFor } from "./syntax.js";
import { findUndefinedReferences, type OffsetRange } from "./undefined-references.js";

/** `reference`: a use of a definition (`[text][label]`, `[label][]`, `[label]`), with the definition's URL. */
export type LinkKind = "link" | "image" | "definition" | "reference" | "html" | "undefined-reference";

export interface ExtractedLink {
  /** The destination as parsed (for `undefined-reference`: the reference label, e.g. `[api]`). */
  url: string;
  /** 1-based line of the link. */
  line: number;
  /** 1-based column where the link starts (`[`, `!`, `<` or the URL itself). */
  column: number;
  kind: LinkKind;
  /** For `reference`: the line of the definition it uses. */
  definitionLine?: number;
}

export interface MarkdownDocument {
  links: ExtractedLink[];
  /** Links turned off by disable comments (counted as skipped). */
  disabledLinks: number;
  anchorIndex: AnchorIndex;
}

export interface AnalyzeOptions {
  /** Keep anchors as written instead of lower-casing them (fragments then match case-sensitively). */
  caseSensitive?: boolean;
  /** Parse every line with every extension (no prose reduction): the reference the fast path must equal. */
  fullParse?: boolean;
}

/** Parts of a heading that are not its text content on GitHub (destinations, images, tags, footnotes). */
const NOT_HEADING_TEXT = new Set(["resource", "reference", "image", "htmlText", "gfmFootnoteCall"]);

interface OpenLink {
  kind: "link" | "image";
  line: number;
  column: number;
  url?: string;
  hasResource: boolean;
  labelText?: string;
  referenceString?: string;
}

interface OpenDefinition {
  line: number;
  column: number;
  label: string;
  url: string;
}

interface ReferenceUse {
  id: string;
  line: number;
  column: number;
}

/** `{#id}` (optionally with classes or attributes) at the end of a heading: the id other renderers use. */
const CUSTOM_ID = /\{#([^\s}]+)[^}]*\}\s*$/;

/**
 * Parses Markdown source into its links and anchors. Plain prose is set aside first (prose-reduction.ts),
 * and syntax extensions the text cannot use are left out, so the parser walks only what can matter.
 */
export function analyzeMarkdown(text: string, options: AnalyzeOptions = {}): MarkdownDocument {
  const reduced: ReducedSource = options.fullParse ? { text, fences: [] } : reduceMarkdown(text);
  const source = reduced.text;
  const extensions = extensionsFor(options.fullParse ? "www.@[^" : source);
  const events = postprocess(
    parse({ extensions })
      .document()
      .write(preprocess()(source, undefined, true)),
  );
  const found: ExtractedLink[] = [];
  const anchors = new Set<string>();
  const directives: Directive[] = [];
  const uses: ReferenceUse[] = [];
  const definitionsById = new Map<string, { url: string; line: number }>();
  const slugger = new GithubSlugger();
  const linkRanges: OffsetRange[] = [];
  const definitions = new Set<string>();
  const openLinks: OpenLink[] = [];
  let definition: OpenDefinition | undefined;
  let heading: { text: string; collecting: boolean; skipDepth: number } | undefined;
  let html: { line: number; column: number; chunks: string[] } | undefined;
  let referencesFormed = 0;
  // Code (fenced, indented, spans) is where `][` is most common and never a reference.
  const codeRanges: OffsetRange[] = [];
  // Where each fenced code block at column 1 opens and ends (lines), to confirm the reduction's fences.
  const fencedAt = new Map<number, number>();

  for (const [kind, token, context] of events) {
    const type = token.type;
    if (kind === "exit") {
      switch (type) {
        case "link":
        case "image": {
          const open = openLinks.pop();
          linkRanges.push([token.start.offset, token.end.offset]);
          if (!open) break;
          if (open.hasResource)
            found.push({ url: open.url ?? "", line: open.line, column: open.column, kind: open.kind });
          else
            uses.push({
              id: normalizeIdentifier(open.referenceString ?? open.labelText ?? "").toLowerCase(),
              line: open.line,
              column: open.column,
            });
          break;
        }
        case "codeFenced":
          if (token.start.column === 1) fencedAt.set(token.start.line, token.end.line);
          break;
        case "definition":
          if (definition) {
            const { url, line, column } = definition;
            found.push({ url, line, column, kind: "definition" });
            const id = normalizeIdentifier(definition.label).toLowerCase();
            definitions.add(id);
            // The first definition of a label is the one references use (CommonMark).
            if (!definitionsById.has(id)) definitionsById.set(id, { url, line });
            linkRanges.push([token.start.offset, token.end.offset]);
            definition = undefined;
          }
          break;
        case "atxHeadingText":
        case "setextHeadingText":
          if (heading) heading.collecting = false;
          break;
        case "atxHeading":
        case "setextHeading": {
          const headingText = heading?.text ?? "";
          anchors.add(slugger.slug(headingText));
          const custom = CUSTOM_ID.exec(headingText)?.[1];
          if (custom) anchors.add(custom);
          heading = undefined;
          break;
        }
        case "htmlFlow":
        case "htmlText":
          if (html) {
            const snippet = html.chunks.join("");
            const scan = scanHtml(snippet);
            for (const l of scan.links) {
              const line = html.line + l.lineOffset;
              const column = l.lineOffset === 0 ? html.column + l.columnOffset : l.columnOffset + 1;
              found.push({ url: l.url, line, column, kind: "html" });
            }
            for (const a of scan.anchors) anchors.add(a);
            directives.push(...findDirectives(snippet, html.line, html.column));
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
        openLinks.push({
          kind: type,
          line: token.start.line,
          column: token.start.column,
          hasResource: false,
        });
        break;
      case "labelText": {
        const open = openLinks[openLinks.length - 1];
        if (open && open.labelText === undefined) open.labelText = context.sliceSerialize(token);
        break;
      }
      case "referenceString": {
        const open = openLinks[openLinks.length - 1];
        if (open) open.referenceString = context.sliceSerialize(token);
        break;
      }
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
      case "codeFenced":
      case "codeIndented":
      case "codeText":
        codeRanges.push([token.start.offset, token.end.offset]);
        break;
      case "definition":
        definition = { line: token.start.line, column: token.start.column, label: "", url: "" };
        break;
      case "definitionLabelString":
        if (definition) definition.label = context.sliceSerialize(token);
        break;
      case "definitionDestinationString":
        if (definition) definition.url = decodeString(context.sliceSerialize(token));
        break;
      case "autolinkProtocol":
      case "literalAutolinkHttp":
        found.push({ url: context.sliceSerialize(token), ...at(token.start), kind: "link" });
        break;
      case "autolinkEmail":
      case "literalAutolinkEmail":
        found.push({ url: `mailto:${context.sliceSerialize(token)}`, ...at(token.start), kind: "link" });
        break;
      case "literalAutolinkWww":
        found.push({ url: `http://${context.sliceSerialize(token)}`, ...at(token.start), kind: "link" });
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
        html = { line: token.start.line, column: token.start.column, chunks: [] };
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

  // A fence the reduction misjudged (it cannot see containers): this text is parsed as written.
  if (reduced.fences.length > 0 && !fencesConfirmed(reduced, fencedAt))
    return analyzeMarkdown(text, { ...options, fullParse: true });

  // Each use of a definition is a link of its own, reported where it is written.
  for (const use of uses) {
    const def = definitionsById.get(use.id);
    if (def)
      found.push({
        url: def.url,
        line: use.line,
        column: use.column,
        kind: "reference",
        definitionLine: def.line,
      });
  }

  // `[text][missing]` is plain text to CommonMark; a second look finds such references, needed only
  // when the source has more `][` than references that formed.
  if (countOutside(source, "][", codeRanges) > referencesFormed) {
    for (const ref of findUndefinedReferences(source, definitions, linkRanges, extensions))
      found.push({ url: `[${ref.label}]`, line: ref.line, column: ref.column, kind: "undefined-reference" });
  }
  // Lines of the reduced text back to the source's (columns are the same: kept lines are kept whole).
  const origin = reduced.lines;
  if (origin) {
    const lineOf = (line: number) => origin[line - 1] ?? line;
    for (const l of found) {
      l.line = lineOf(l.line);
      if (l.definitionLine !== undefined) l.definitionLine = lineOf(l.definitionLine);
    }
    for (const d of directives) d.line = lineOf(d.line);
  }
  found.sort((a, b) => a.line - b.line || a.column - b.column);
  const links = directives.length ? found.filter((l) => !isDisabled(l, directives)) : found;
  const kept = options.caseSensitive ? anchors : new Set([...anchors].map((a) => a.toLowerCase()));
  return {
    links,
    disabledLinks: found.length - links.length,
    anchorIndex: { anchors: kept, lineCount: countLines(text) },
  };
}

function at(point: { line: number; column: number }): { line: number; column: number } {
  return { line: point.line, column: point.column };
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

/** Occurrences of `needle` outside `ranges` (sorted, as the parser emits them). */
function countOutside(text: string, needle: string, ranges: readonly OffsetRange[]): number {
  let n = 0;
  let r = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) {
    while (r < ranges.length && (ranges[r] as OffsetRange)[1] <= i) r++;
    const range = ranges[r];
    if (!range || i < range[0]) n++;
  }
  return n;
}

/** Lines as an editor counts them: a trailing newline does not start another line. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  return text.endsWith("\n") ? lines - 1 : lines;
}
