/** Splits a byte stream into lines as it arrives (UTF-8 safe across chunks), ANSI stripped (Node's own stripVTControlCharacters). */
import { StringDecoder } from "node:string_decoder";
import { stripVTControlCharacters } from "node:util";

export class LineSplitter {
  private readonly decoder = new StringDecoder("utf8");
  private pending = "";

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    const text = this.pending + this.decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      this.emit(text.slice(start, nl));
      start = nl + 1;
    }
    this.pending = text.slice(start);
  }

  /** Flushes the last line when the stream did not end with a newline. */
  end(): void {
    const rest = this.pending + this.decoder.end();
    this.pending = "";
    if (rest) this.emit(rest);
  }

  private emit(line: string): void {
    this.onLine(stripVTControlCharacters(line.endsWith("\r") ? line.slice(0, -1) : line));
  }
}
