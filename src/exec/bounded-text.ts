/**
 * A tool's whole report (one JSON document: pyright's, bandit's, gosec's), collected from its stdout chunks up
 * to a bound on memory. Past the bound it stops collecting and says so: the caller refuses the report rather
 * than parse a part of it or hold whatever a tool prints.
 */

/** The largest single report read whole: far above any real one (3,000 pyright diagnostics are ~1.5 MB). */
export const MAX_REPORT_BYTES = 256 * 1024 * 1024;

export class BoundedText {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  overflowed = false;

  constructor(private readonly max = MAX_REPORT_BYTES) {}

  push(chunk: Buffer): void {
    if (this.overflowed) return;
    this.bytes += chunk.length;
    if (this.bytes > this.max) {
      this.overflowed = true;
      this.chunks.length = 0;
      return;
    }
    this.chunks.push(chunk);
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
