const NEWLINE = 0x0a;

/** Options of {@link LineFramer}. */
export interface LineFramerOptions {
  /** The longest line accepted, in bytes, without its newline. */
  maxLineBytes: number;
  /** Receives each complete line, without its newline. */
  onLine: (line: Buffer) => void;
  /** Called once when a line grows past `maxLineBytes`; the framer then ignores all further input. */
  onOverflow: (bytes: number) => void;
}

/** Splits a byte stream into newline-delimited lines, holding at most `maxLineBytes` of an unfinished line. */
export class LineFramer {
  private chunks: Buffer[] = [];
  private length = 0;
  private stopped = false;

  constructor(private readonly options: LineFramerOptions) {}

  /** Feeds the next chunk of the stream. */
  push(chunk: Buffer): void {
    let start = 0;
    while (!this.stopped && start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      // Checked before buffering, so a server that never sends a newline cannot make us hold more.
      const lineBytes = this.length + (end - start);
      if (lineBytes > this.options.maxLineBytes) {
        this.stop();
        this.options.onOverflow(lineBytes);
        return;
      }
      if (newline === -1) {
        this.chunks.push(chunk.subarray(start));
        this.length += chunk.length - start;
        return;
      }
      const piece = chunk.subarray(start, newline);
      const line =
        this.length === 0 ? piece : Buffer.concat([...this.chunks, piece], this.length + piece.length);
      this.chunks = [];
      this.length = 0;
      start = newline + 1;
      this.options.onLine(line);
    }
  }

  /** Drops any partial line and ignores all further input. */
  stop(): void {
    this.stopped = true;
    this.chunks = [];
    this.length = 0;
  }
}
