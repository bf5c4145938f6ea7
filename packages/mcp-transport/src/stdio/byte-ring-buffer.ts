/** Keeps the last `capacity` bytes written to it, copying them so the stream's own buffers can be freed. */
export class ByteRingBuffer {
  private chunks: Buffer[] = [];
  private length = 0;
  private written = 0;

  constructor(readonly capacity: number) {}

  /** Total bytes ever written, including the ones no longer kept. */
  get totalBytes(): number {
    return this.written;
  }

  /** Appends a chunk, dropping the oldest bytes beyond the capacity. */
  push(chunk: Buffer): void {
    this.written += chunk.length;
    if (this.capacity === 0) return;
    const kept = chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk;
    this.chunks.push(Buffer.from(kept));
    this.length += kept.length;
    while (this.length > this.capacity) {
      const first = this.chunks[0];
      if (first === undefined) break;
      const excess = this.length - this.capacity;
      if (first.length <= excess) {
        this.chunks.shift();
        this.length -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.length -= excess;
      }
    }
  }

  /** The kept bytes decoded as UTF-8; a character cut in half at the start is dropped. */
  toString(): string {
    const text = Buffer.concat(this.chunks, this.length).toString("utf8");
    return this.written > this.length ? text.replace(/^\uFFFD+/, "") : text;
  }
}
