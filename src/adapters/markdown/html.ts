/**
 * Links and anchors in raw HTML embedded in Markdown (`<a href>`, `<img src>`, `id`/`name` anchors),
 * read with a real HTML tokenizer (htmlparser2), so quoting, entities and comments are handled as a
 * browser would.
 */
import { Parser } from "htmlparser2";

export interface HtmlLink {
  url: string;
  /** 0-based line offset of the tag from the start of the HTML snippet. */
  lineOffset: number;
  /** 0-based index of the tag in its line of the snippet. */
  columnOffset: number;
}

export interface HtmlScan {
  links: HtmlLink[];
  /** Explicit anchors: every `id`, and `name` on `<a>`. */
  anchors: string[];
}

/** Which attribute of which element is a link worth checking. */
const LINK_ATTRIBUTES: Readonly<Record<string, string>> = { a: "href", img: "src" };

/** Scans one HTML snippet (a block or a single inline tag). */
export function scanHtml(html: string): HtmlScan {
  const links: HtmlLink[] = [];
  const anchors: string[] = [];
  let line = 0;
  let lineStart = 0;
  let counted = 0;
  const lineAt = (index: number): number => {
    // Tags arrive in order, so newlines are counted incrementally.
    for (; counted < index && counted < html.length; counted++)
      if (html.charCodeAt(counted) === 10) {
        line++;
        lineStart = counted + 1;
      }
    return line;
  };
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const offset = lineAt(parser.startIndex);
        const linkAttribute = LINK_ATTRIBUTES[name];
        const url = linkAttribute ? attributes[linkAttribute] : undefined;
        if (url !== undefined && url.trim() !== "")
          links.push({ url: url.trim(), lineOffset: offset, columnOffset: parser.startIndex - lineStart });
        if (attributes.id) anchors.push(attributes.id);
        if (name === "a" && attributes.name) anchors.push(attributes.name);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return { links, anchors };
}
