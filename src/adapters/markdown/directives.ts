/**
 * Inline disable comments, as markdown-link-check users write them and in this checker's own
 * spelling: `<!-- markdown-link-check-disable -->` … `<!-- markdown-link-check-enable -->` turn checks
 * off for a region, `-disable-line` for the comment's own line, `-disable-next-line` for the line
 * after it. `check-markdown-links-…` works the same. Only real HTML comments count (not text in code).
 */

export type DirectiveKind = "disable" | "enable" | "disable-line" | "disable-next-line";

export interface Directive {
  kind: DirectiveKind;
  line: number;
  column: number;
}

const DIRECTIVE =
  /<!--\s*(?:markdown-link-check|check-markdown-links)-(disable-next-line|disable-line|disable|enable)\s*-->/g;

/** The directives in one HTML snippet that starts at (`line`, `column`). */
export function findDirectives(html: string, line: number, column: number): Directive[] {
  if (!html.includes("-disable") && !html.includes("-enable")) return [];
  const out: Directive[] = [];
  for (const m of html.matchAll(DIRECTIVE)) {
    const before = html.slice(0, m.index);
    const newlines = before.split("\n").length - 1;
    const lineStart = before.lastIndexOf("\n") + 1;
    out.push({
      kind: m[1] as DirectiveKind,
      line: line + newlines,
      column: newlines === 0 ? column + m.index : m.index - lineStart + 1,
    });
  }
  return out;
}

const before = (a: { line: number; column: number }, b: { line: number; column: number }) =>
  a.line < b.line || (a.line === b.line && a.column < b.column);

/** Whether a link at (`line`, `column`) is turned off by `directives` (in document order). */
export function isDisabled(
  link: { line: number; column: number },
  directives: readonly Directive[],
): boolean {
  let region = false;
  for (const d of directives) {
    if (d.kind === "disable-line" && d.line === link.line) return true;
    if (d.kind === "disable-next-line" && d.line + 1 === link.line) return true;
    if ((d.kind === "disable" || d.kind === "enable") && before(d, link)) region = d.kind === "disable";
  }
  return region;
}
