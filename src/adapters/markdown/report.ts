/**
 * Collects broken links into the result's `broken` list: one `{file, url, lines, error}` entry per
 * file, URL and reason (all its lines together), plus `{file, error}` for files that could not be read.
 */

export interface BrokenLinkEntry {
  file: string;
  url: string;
  lines: number[];
  error: string;
}

export interface UnreadableFileEntry {
  file: string;
  error: string;
}

export type ReportEntry = BrokenLinkEntry | UnreadableFileEntry;

export class BrokenLinkCollector {
  private readonly links = new Map<string, BrokenLinkEntry>();
  private readonly files: UnreadableFileEntry[] = [];
  private occurrences = 0;

  broken(file: string, url: string, line: number, error: string): void {
    this.occurrences++;
    const key = `${file}\0${url}\0${error}`;
    const entry = this.links.get(key);
    if (entry) entry.lines.push(line);
    else this.links.set(key, { file, url, lines: [line], error });
  }

  unreadable(file: string, error: string): void {
    this.files.push({ file, error });
  }

  /** Entries sorted by file, first line and URL; unreadable files after the links. */
  report(): { entries: ReportEntry[]; brokenLinks: number } {
    const links = [...this.links.values()];
    for (const l of links) l.lines.sort((a, b) => a - b);
    links.sort(
      (a, b) =>
        compare(a.file, b.file) ||
        (a.lines[0] as number) - (b.lines[0] as number) ||
        compare(a.url, b.url) ||
        compare(a.error, b.error),
    );
    const files = [...this.files].sort((a, b) => compare(a.file, b.file));
    return { entries: [...links, ...files], brokenLinks: this.occurrences };
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
