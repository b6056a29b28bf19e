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
import { leavesBlockOpen, sectionStarts, type SectionStart } from "./sections.js";
import { ALL_EXTENSIONS, extensionsFor, footnoteExtension } from "./syntax.js";
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

/** One event of micromark's stream: enter or exit, the token, and the tokenizer that made it. */
type ParseEvent = ReturnType<typeof postprocess>[number];
type Token = ParseEvent[1];
type TokenContext = ParseEvent[2];

/** What the walk over a document's events gathers. */
class Gathered {
  readonly found: ExtractedLink[] = [];
  readonly anchors = new Set<string>();
  readonly directives: Directive[] = [];
  readonly uses: ReferenceUse[] = [];
  readonly definitionsById = new Map<string, { url: string; line: number }>();
  readonly slugger = new GithubSlugger();
  readonly linkRanges: OffsetRange[] = [];
  readonly definitions = new Set<string>();
  readonly openLinks: OpenLink[] = [];
  definition: OpenDefinition | undefined = undefined;
  heading: { text: string; collecting: boolean; skipDepth: number } | undefined = undefined;
  html: { line: number; column: number; chunks: string[] } | undefined = undefined;
  referencesFormed = 0;
  // Code (fenced, indented, spans) is where `][` is most common and never a reference.
  readonly codeRanges: OffsetRange[] = [];
  // Where each fenced code block at column 1 opens and ends (lines), to confirm the reduction's fences.
  readonly fencedAt = new Map<number, number>();

  lastOpenLink(): OpenLink | undefined {
    return this.openLinks[this.openLinks.length - 1];
  }
}

type Handler = (g: Gathered, token: Token, context: TokenContext) => void;

/**
 * What entering a token of each type does; types not listed (most of the stream: data, whitespace, markers)
 * do nothing. A handler each, looked up by type, rather than one switch: the walk stays small, and the
 * optimizing compiler compiles each piece once it is hot instead of one large function again and again.
 */
const ON_ENTER = new Map<string, Handler>([
  ["link", (g, token) => openLink(g, token, "link")],
  ["image", (g, token) => openLink(g, token, "image")],
  [
    "labelText",
    (g, token, context) => {
      const open = g.lastOpenLink();
      if (open && open.labelText === undefined) open.labelText = context.sliceSerialize(token);
    },
  ],
  [
    "referenceString",
    (g, token, context) => {
      const open = g.lastOpenLink();
      if (open) open.referenceString = context.sliceSerialize(token);
    },
  ],
  [
    "resource",
    (g) => {
      const open = g.lastOpenLink();
      if (open) open.hasResource = true;
    },
  ],
  [
    "resourceDestinationString",
    (g, token, context) => {
      const open = g.lastOpenLink();
      if (open) open.url = decodeString(context.sliceSerialize(token));
    },
  ],
  ["reference", (g) => void g.referencesFormed++],
  ["codeFenced", codeRange],
  ["codeIndented", codeRange],
  ["codeText", codeRange],
  [
    "definition",
    (g, token) => {
      g.definition = { line: token.start.line, column: token.start.column, label: "", url: "" };
    },
  ],
  [
    "definitionLabelString",
    (g, token, context) => {
      if (g.definition) g.definition.label = context.sliceSerialize(token);
    },
  ],
  [
    "definitionDestinationString",
    (g, token, context) => {
      if (g.definition) g.definition.url = decodeString(context.sliceSerialize(token));
    },
  ],
  ["autolinkProtocol", (g, token, context) => autolink(g, token, context.sliceSerialize(token))],
  ["literalAutolinkHttp", (g, token, context) => autolink(g, token, context.sliceSerialize(token))],
  ["autolinkEmail", (g, token, context) => autolink(g, token, `mailto:${context.sliceSerialize(token)}`)],
  [
    "literalAutolinkEmail",
    (g, token, context) => autolink(g, token, `mailto:${context.sliceSerialize(token)}`),
  ],
  [
    "literalAutolinkWww",
    (g, token, context) => autolink(g, token, `http://${context.sliceSerialize(token)}`),
  ],
  ["atxHeading", openHeading],
  ["setextHeading", openHeading],
  ["atxHeadingText", collectHeading],
  ["setextHeadingText", collectHeading],
  ["htmlFlow", openHtml],
  ["htmlText", openHtml],
  ["htmlFlowData", htmlData],
  ["htmlTextData", htmlData],
  [
    "lineEnding",
    // Line endings inside HTML are kept so that tags spanning lines get the right line numbers.
    (g) => void g.html?.chunks.push("\n"),
  ],
  [
    "gfmFootnoteDefinitionLabelString",
    (g, token, context) =>
      void g.anchors.add(`fn-${normalizeIdentifier(context.sliceSerialize(token)).toLowerCase()}`),
  ],
  [
    "gfmFootnoteCallString",
    (g, token, context) =>
      void g.anchors.add(`fnref-${normalizeIdentifier(context.sliceSerialize(token)).toLowerCase()}`),
  ],
]);

/** What exiting a token of each type does (see ON_ENTER). */
const ON_EXIT = new Map<string, Handler>([
  ["link", closeLink],
  ["image", closeLink],
  [
    "codeFenced",
    (g, token) => {
      if (token.start.column === 1) g.fencedAt.set(token.start.line, token.end.line);
    },
  ],
  [
    "definition",
    (g, token) => {
      const definition = g.definition;
      if (!definition) return;
      const { url, line, column } = definition;
      g.found.push({ url, line, column, kind: "definition" });
      const id = normalizeIdentifier(definition.label).toLowerCase();
      g.definitions.add(id);
      // The first definition of a label is the one references use (CommonMark).
      if (!g.definitionsById.has(id)) g.definitionsById.set(id, { url, line });
      g.linkRanges.push([token.start.offset, token.end.offset]);
      g.definition = undefined;
    },
  ],
  ["atxHeadingText", endHeadingText],
  ["setextHeadingText", endHeadingText],
  ["atxHeading", closeHeading],
  ["setextHeading", closeHeading],
  ["htmlFlow", closeHtml],
  ["htmlText", closeHtml],
]);

function openLink(g: Gathered, token: Token, kind: "link" | "image"): void {
  g.openLinks.push({ kind, line: token.start.line, column: token.start.column, hasResource: false });
}

function closeLink(g: Gathered, token: Token): void {
  const open = g.openLinks.pop();
  g.linkRanges.push([token.start.offset, token.end.offset]);
  if (!open) return;
  if (open.hasResource)
    g.found.push({ url: open.url ?? "", line: open.line, column: open.column, kind: open.kind });
  else
    g.uses.push({
      id: normalizeIdentifier(open.referenceString ?? open.labelText ?? "").toLowerCase(),
      line: open.line,
      column: open.column,
    });
}

function codeRange(g: Gathered, token: Token): void {
  g.codeRanges.push([token.start.offset, token.end.offset]);
}

function autolink(g: Gathered, token: Token, url: string): void {
  g.found.push({ url, ...at(token.start), kind: "link" });
}

function openHeading(g: Gathered): void {
  g.heading = { text: "", collecting: false, skipDepth: 0 };
}

function collectHeading(g: Gathered): void {
  if (g.heading) g.heading.collecting = true;
}

function endHeadingText(g: Gathered): void {
  if (g.heading) g.heading.collecting = false;
}

function closeHeading(g: Gathered): void {
  const headingText = g.heading?.text ?? "";
  g.anchors.add(g.slugger.slug(headingText));
  const custom = CUSTOM_ID.exec(headingText)?.[1];
  if (custom) g.anchors.add(custom);
  g.heading = undefined;
}

function openHtml(g: Gathered, token: Token): void {
  g.html = { line: token.start.line, column: token.start.column, chunks: [] };
}

function htmlData(g: Gathered, token: Token, context: TokenContext): void {
  g.html?.chunks.push(context.sliceSerialize(token));
}

function closeHtml(g: Gathered): void {
  const html = g.html;
  if (!html) return;
  const snippet = html.chunks.join("");
  const scan = scanHtml(snippet);
  for (const l of scan.links) {
    const line = html.line + l.lineOffset;
    const column = l.lineOffset === 0 ? html.column + l.columnOffset : l.columnOffset + 1;
    g.found.push({ url: l.url, line, column, kind: "html" });
  }
  for (const a of scan.anchors) g.anchors.add(a);
  g.directives.push(...findDirectives(snippet, html.line, html.column));
  g.html = undefined;
}

/** The events of `source` parsed with `extensions`, as micromark gives them. */
function parseEvents(source: string, extensions: ReturnType<typeof extensionsFor>): ParseEvent[] {
  return postprocess(
    parse({ extensions })
      .document()
      .write(preprocess()(source, undefined, true)),
  );
}

/** A section is cut only after this many lines: each parse has a cost of its own. */
const MIN_SECTION_LINES = 16;

/**
 * `source` parsed and walked a section at a time (sections.ts), with what the whole parse would give;
 * undefined when a cut turns out not to be one, or a definition could have resolved differently.
 */
function gatherBySection(source: string, extensions: ReturnType<typeof extensionsFor>): Gathered | undefined {
  const starts = sectionStarts(source, MIN_SECTION_LINES);
  if (starts.length < 2) return undefined;
  // One parser for all sections: its definitions are the document's. Every section's blocks are read
  // first (micromark registers definitions then, in any container, as in the whole parse), then each
  // section's inline text, where references are resolved, with its events dropped once walked.
  const parser = parse({ extensions });
  const written = starts.map((start, i) => {
    const end = starts[i + 1]?.offset ?? source.length;
    const from = { line: start.line, column: 1, offset: start.offset, _index: 0, _bufferIndex: -1 };
    // The end of the section before marked this line lazy (a continuation of its open blocks); a section
    // starts a document, whose first line is not.
    parser.lazy[start.line] = false;
    return parser.document(from).write(preprocess()(source.slice(start.offset, end), undefined, true));
  });
  const defined = parser.defined.length;
  const g = new Gathered();
  for (let i = 0; i < written.length; i++) {
    const events = postprocess(written[i] as ParseEvent[]);
    written[i] = [];
    // A definition registered only while inline text is read (none is known to be) would depend on the
    // order text is read in, which only the whole parse has.
    if (parser.defined.length !== defined) return undefined;
    const next = starts[i + 1];
    if (next && leavesBlockOpen(events, source, starts[i] as SectionStart, next.offset)) return undefined;
    walk(g, events);
  }
  return g;
}

/** Walks the events: each token's handler, and the text of the heading being read. */
function gather(events: readonly ParseEvent[]): Gathered {
  const g = new Gathered();
  walk(g, events);
  return g;
}

/** Walks `events` into `g`. */
function walk(g: Gathered, events: readonly ParseEvent[]): void {
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as ParseEvent;
    const token = event[1];
    const type = token.type;
    if (event[0] === "exit") {
      ON_EXIT.get(type)?.(g, token, event[2]);
      if (g.heading && g.heading.skipDepth > 0 && NOT_HEADING_TEXT.has(type)) g.heading.skipDepth--;
      continue;
    }
    // Heading text: what GitHub's slug is made from (text, code, decoded escapes and references).
    const heading = g.heading;
    if (heading?.collecting) {
      if (NOT_HEADING_TEXT.has(type)) heading.skipDepth++;
      else if (heading.skipDepth === 0) heading.text += headingTextOf(type, event[2].sliceSerialize(token));
    }
    ON_ENTER.get(type)?.(g, token, event[2]);
  }
}

/**
 * Parses Markdown source into its links and anchors. Plain prose is set aside first (prose-reduction.ts),
 * and syntax extensions the text cannot use are left out, so the parser walks only what can matter.
 */
export function analyzeMarkdown(text: string, options: AnalyzeOptions = {}): MarkdownDocument {
  // Every ReducedSource has one shape (the same properties, in the same order), so code reading one is
  // not thrown away and compiled again each time a file brings another shape.
  const reduced: ReducedSource = options.fullParse
    ? { text, lines: undefined, fences: [] }
    : reduceMarkdown(text);
  const source = reduced.text;
  const extensions = options.fullParse ? [...ALL_EXTENSIONS] : extensionsFor(source);
  // Footnotes are looked up across the document too, and are rare: such a text is parsed whole.
  const g =
    (options.fullParse || extensions.includes(footnoteExtension)
      ? undefined
      : gatherBySection(source, extensions)) ?? gather(parseEvents(source, extensions));
  const { found, anchors, directives, uses, definitionsById, linkRanges, definitions, codeRanges } = g;

  // A fence the reduction misjudged (it cannot see containers): this text is parsed as written.
  if (reduced.fences.length > 0 && !fencesConfirmed(reduced, g.fencedAt))
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
  if (countOutside(source, "][", codeRanges) > g.referencesFormed) {
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
