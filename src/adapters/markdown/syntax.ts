/**
 * The Markdown dialect links are read in: CommonMark plus the GFM parts that make or unmake links
 * (literal autolinks such as www.example.com, and footnotes, whose `[^1]: text` is not a link
 * definition). Tables, strikethrough and task lists change no link, so they are not parsed (faster).
 */
import { gfmAutolinkLiteral } from "micromark-extension-gfm-autolink-literal";
import { gfmFootnote } from "micromark-extension-gfm-footnote";

export const micromarkExtensions = [gfmAutolinkLiteral(), gfmFootnote()];
