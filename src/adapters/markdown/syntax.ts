/**
 * The Markdown dialect links are read in: CommonMark plus the GFM parts that make or unmake links
 * (literal autolinks such as www.example.com, and footnotes, whose `[^1]: text` is not a link
 * definition). Tables, strikethrough and task lists change no link, so they are not parsed (faster).
 * An extension is left out for a text that cannot contain what it looks for: each one costs the
 * tokenizer work at every word of prose.
 */
import { gfmAutolinkLiteral } from "micromark-extension-gfm-autolink-literal";
import { gfmFootnote } from "micromark-extension-gfm-footnote";

type Extension = ReturnType<typeof gfmFootnote>;

const autolinkLiteral = gfmAutolinkLiteral();
const footnote = gfmFootnote();

/** Literal autolinks need `www.`, `://` or an `@` (e-mail, xmpp:, mailto:). */
const MAY_AUTOLINK = /www\.|:\/\/|@/i;

/** The extensions `source` needs. */
export function extensionsFor(source: string): Extension[] {
  const extensions: Extension[] = [];
  if (MAY_AUTOLINK.test(source)) extensions.push(autolinkLiteral);
  if (source.includes("[^")) extensions.push(footnote);
  return extensions;
}
