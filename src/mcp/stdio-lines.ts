/**
 * stdin for the stdio transport, one JSON-RPC message per line, with a size limit that answers instead of
 * ending the server. The SDK's own reader keeps one buffer for everything unread and, past its 10 MiB
 * (`maxBufferSize`), throws, closes the transport and so ends the server (exit 0, no answer): a request with
 * an inline SARIF log of about 10 MiB did exactly that, though `--sarif-max-bytes` allows 16 MiB. Here lines
 * are framed first (chunks collected, joined once: no copy per chunk), a line within the limit is handed on
 * whole, and a longer one is dropped as it arrives and answered with a JSON-RPC error for its request id.
 */
import { Transform, type TransformCallback } from "node:stream";

/** Bytes of a dropped line kept from its start and end, to find its request id. */
const EDGE_BYTES = 4096;

/** JSON-RPC's "Invalid Request". */
export const REQUEST_TOO_LARGE = -32600;

/** The request id of a JSON-RPC message, from the first and last bytes of its line (the SDK writes it last). */
export function requestIdOf(head: string, tail: string): string | number | undefined {
  const value = (m: RegExpExecArray | null) => {
    if (!m) return undefined;
    const raw = m[1]!;
    return raw.startsWith('"') ? (JSON.parse(raw) as string) : Number(raw);
  };
  const ID = String.raw`"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")`;
  return (
    value(new RegExp(String.raw`[,{]\s*${ID}\s*\}\s*$`).exec(tail)) ??
    value(new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?${ID}`).exec(head))
  );
}

export interface StdioLineOptions {
  maxLineBytes: number;
  /** Called for a dropped line: its size and request id (undefined when none could be read). */
  onTooLarge(bytes: number, id: string | number | undefined): void;
}

/** A Transform from raw stdin to whole lines (each ending in "\n"), longer ones dropped. */
export function stdioLines(options: StdioLineOptions): Transform {
  let parts: Buffer[] = [];
  let size = 0;
  let dropping = false;
  let head = "";
  let tail = Buffer.alloc(0);
  const keepTail = (b: Buffer) => {
    tail = Buffer.concat([tail, b.subarray(Math.max(0, b.length - EDGE_BYTES))]);
    if (tail.length > EDGE_BYTES) tail = tail.subarray(tail.length - EDGE_BYTES);
  };
  const take = (b: Buffer) => {
    size += b.length;
    if (!dropping && size > options.maxLineBytes) {
      dropping = true;
      const start = Buffer.concat(parts);
      head = Buffer.concat([start.subarray(0, EDGE_BYTES), b.subarray(0, EDGE_BYTES)])
        .subarray(0, EDGE_BYTES)
        .toString("utf8");
      keepTail(start);
      parts = [];
    }
    if (dropping) keepTail(b);
    else parts.push(b);
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      let at = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, at);
        if (nl === -1) break;
        take(chunk.subarray(at, nl));
        if (dropping) options.onTooLarge(size, requestIdOf(head, tail.toString("utf8")));
        else if (size > 0 || parts.length) this.push(Buffer.concat([...parts, Buffer.from("\n")]));
        parts = [];
        size = 0;
        dropping = false;
        head = "";
        tail = Buffer.alloc(0);
        at = nl + 1;
      }
      if (at < chunk.length) take(chunk.subarray(at));
      done();
    },
    flush(done: TransformCallback) {
      if (!dropping && parts.length) this.push(Buffer.concat(parts));
      done();
    },
  });
}
