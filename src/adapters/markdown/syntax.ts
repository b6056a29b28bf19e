/**
 * The Markdown dialect links are read in: CommonMark plus the GFM parts that make or unmake links
 * (literal autolinks such as www.example.com, and footnotes, whose `[^1]: text` is not a link
 * definition). Tables, strikethrough and task lists change no link, so they are not parsed (faster).
 * An extension, or one kind of literal autolink, is left out for a text that cannot contain what it
 * looks for: each one costs the tokenizer work at every word of prose.
 */
import { gfmAutolinkLiteral } from "micromark-extension-gfm-autolink-literal";
import { gfmFootnote } from "micromark-extension-gfm-footnote";

type Extension = ReturnType<typeof gfmFootnote>;
type ConstructRecord = NonNullable<Extension["text"]>;
type Construct = Exclude<ConstructRecord[string], unknown[] | undefined>;

const autolinkLiteral = gfmAutolinkLiteral();
const footnote = gfmFootnote();

/** The footnote extension (its definitions are the document's, looked up from any part of it). */
export const footnoteExtension: Extension = footnote;

/** Every extension: what a full parse reads with. */
export const ALL_EXTENSIONS: readonly Extension[] = [autolinkLiteral, footnote];

/**
 * The three literal autolinks, by the name of their construct, and what each needs in the text: an
 * e-mail an `@`, a www. link `www.`, a http(s) link `://`. The e-mail one is tried at the start of every
 * word of every line parsed, and most documents have no `@`.
 */
const AUTOLINK_NEEDS: readonly [string, RegExp][] = [
  ["emailAutolink", /@/],
  ["wwwAutolink", /www\./i],
  ["protocolAutolink", /:\/\//],
];

/** The literal-autolink extension with only the constructs named (one per set of names, made once). */
const autolinkSubsets = new Map<string, Extension>();

function autolinkWith(names: readonly string[]): Extension {
  const key = names.join(" ");
  let subset = autolinkSubsets.get(key);
  if (!subset) {
    subset = { text: constructsNamed(autolinkLiteral.text ?? {}, names) };
    autolinkSubsets.set(key, subset);
  }
  return subset;
}

/** `record` with only the constructs named: a character none of them starts is left out. */
export function constructsNamed(record: ConstructRecord, names: readonly string[]): ConstructRecord {
  const out: ConstructRecord = {};
  for (const [code, value] of Object.entries(record)) {
    const list = (Array.isArray(value) ? value : value ? [value] : []) as Construct[];
    const kept = list.filter((c) => c.name !== undefined && names.includes(c.name));
    if (kept.length > 0) out[code] = kept;
  }
  return out;
}

/** The extensions `source` needs. */
export function extensionsFor(source: string): Extension[] {
  const extensions: Extension[] = [];
  const autolinks = AUTOLINK_NEEDS.filter(([, needs]) => needs.test(source)).map(([name]) => name);
  if (autolinks.length === AUTOLINK_NEEDS.length) extensions.push(autolinkLiteral);
  else if (autolinks.length > 0) extensions.push(autolinkWith(autolinks));
  if (source.includes("[^")) extensions.push(footnote);
  return extensions;
}
