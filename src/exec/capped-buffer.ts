/**
 * Collects a stream's bytes up to a cap, keeping the head and the tail; whatever falls between
 * is counted and replaced by a marker, so a 1 GiB stream costs at most `maxBytes` of memory.
 */
export class CappedBuffer {
  private readonly headMax: number;
  private readonly tailMax: number;
  private head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  private dropped = 0;

  constructor(maxBytes: number) {
    this.headMax = Math.ceil(maxBytes / 2);
    this.tailMax = Math.floor(maxBytes / 2);
  }

  push(chunk: Buffer): void {
    if (this.headLen < this.headMax) {
      const take = Math.min(chunk.length, this.headMax - this.headLen);
      this.head.push(chunk.subarray(0, take));
      this.headLen += take;
      chunk = chunk.subarray(take);
      if (chunk.length === 0) return;
    }
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    while (this.tailLen > this.tailMax) {
      const first = this.tail[0] as Buffer;
      const excess = this.tailLen - this.tailMax;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailLen -= first.length;
        this.dropped += first.length;
      } else {
        // Copy so the dropped part of a large chunk can be garbage-collected.
        this.tail[0] = Buffer.from(first.subarray(excess));
        this.tailLen -= excess;
        this.dropped += excess;
      }
    }
  }

  /** Bytes cut from the middle. */
  get truncatedBytes(): number {
    return this.dropped;
  }

  get totalBytes(): number {
    return this.headLen + this.tailLen + this.dropped;
  }

  toString(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = Buffer.concat(this.tail).toString("utf8");
    if (this.dropped === 0) return head + tail;
    return `${head}\n... [${this.dropped} bytes truncated] ...\n${tail}`;
  }
}
