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

/**
 * A broken link as seed 000's contract reports it: one entry per link (file, URL and reason), with every
 * line it is on (`lines`); `line` and `column` are its first occurrence's (what clients of the earlier,
 * per-occurrence shape read), `suggestion` and `definition_line` the first that has them.
 */
export interface BrokenLinkEntry {
  file: string;
  url: string;
  lines: number[];
  error: string;
  line: number;
  column: number;
  suggestion?: string;
  definition_line?: number;
}

/** The entries of a report: its occurrences grouped by file, URL and error (in report order), files unchanged. */
export function groupByLink(entries: readonly ReportEntry[]): (BrokenLinkEntry | UnreadableFile)[] {
  const out: (BrokenLinkEntry | UnreadableFile)[] = [];
  const byKey = new Map<string, BrokenLinkEntry>();
  for (const e of entries) {
    if (!("url" in e)) {
      out.push(e);
      continue;
    }
    const key = `${e.file}\0${e.url}\0${e.error}`;
    const seen = byKey.get(key);
    if (seen) {
      if (!seen.lines.includes(e.line)) seen.lines.push(e.line);
      if (seen.suggestion === undefined && e.suggestion !== undefined) seen.suggestion = e.suggestion;
      if (seen.definition_line === undefined && e.definition_line !== undefined)
        seen.definition_line = e.definition_line;
      continue;
    }
    const entry: BrokenLinkEntry = {
      file: e.file,
      url: e.url,
      lines: [e.line],
      error: e.error,
      line: e.line,
      column: e.column,
      ...(e.suggestion !== undefined && { suggestion: e.suggestion }),
      ...(e.definition_line !== undefined && { definition_line: e.definition_line }),
    };
    byKey.set(key, entry);
    out.push(entry);
  }
  return out;
}
