/**
 * Collects the result's `broken` list: one plain record per broken link occurrence
 * (`{file, line, column, url, error, suggestion?}`), then `{file, error}` for files that could not be
 * read. Each record stands alone, so it maps one-to-one onto a finding.
 */

export interface BrokenLink {
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  url: string;
  error: string;
  /** What the link most likely meant (an existing file or anchor), written as a link. */
  suggestion?: string;
  /** For a reference link (`[text][label]`): the line of the definition whose URL is broken. */
  definition_line?: number;
}

export interface UnreadableFile {
  file: string;
  error: string;
}

export type ReportEntry = BrokenLink | UnreadableFile;

export class BrokenLinkCollector {
  private readonly links: BrokenLink[] = [];
  private readonly files: UnreadableFile[] = [];

  broken(link: BrokenLink): void {
    this.links.push(link);
  }

  unreadable(file: string, error: string): void {
    this.files.push({ file, error });
  }

  /** Links sorted by file, line, column and URL; unreadable files after them. */
  report(): { entries: ReportEntry[]; brokenLinks: number } {
    const links = [...this.links].sort(
      (a, b) =>
        compare(a.file, b.file) ||
        a.line - b.line ||
        a.column - b.column ||
        compare(a.url, b.url) ||
        compare(a.error, b.error),
    );
    const files = [...this.files].sort((a, b) => compare(a.file, b.file));
    return { entries: [...links, ...files], brokenLinks: links.length };
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
