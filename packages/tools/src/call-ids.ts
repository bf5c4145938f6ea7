// Call ids: `call_` and a random UUID (version 4, RFC 9562), the format calls have always had.
// Built here rather than by crypto.randomUUID because of what a call keeps: randomUUID concatenates
// its text from a dozen pieces, a tree of string nodes (~500 bytes) that stays alive for every call
// of a run (its record and the store's copy) and that the garbage collector copies; flattening it
// (with join) cost more than making the id. This makes each id one flat string at once. Every id is
// random whole (122 bits), not a prefix and a counter: ids from several processes writing one audit
// trail, or one approval store, cannot collide, and none can be guessed from another.

// Random bytes are fetched for this many ids at a time (4 KB): a getRandomValues call costs ~2.5 µs
// whatever its size up to a few KB, ~80 ns per id at 32 ids a fill, ~10 ns at 256.
const IDS_PER_FILL = 256;
const BYTES_PER_ID = 16;
// Char codes of the hex digits 0-9a-f.
const HEX: readonly number[] = Array.from({ length: 16 }, (_, digit) => digit.toString(16).charCodeAt(0));

/** Makes call ids, `call_<uuid v4>`, from crypto.getRandomValues; one per run or per registry. */
export class CallIds {
  readonly #bytes = new Uint8Array(BYTES_PER_ID * IDS_PER_FILL);
  #offset = this.#bytes.length;

  /** A new call id. */
  next(): string {
    const bytes = this.#bytes;
    if (this.#offset === bytes.length) {
      globalThis.crypto.getRandomValues(bytes);
      this.#offset = 0;
    }
    const at = this.#offset;
    this.#offset += BYTES_PER_ID;
    // xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx: the version digit is 4, the variant digit V is 8, 9, a or b.
    const variant = HEX[8 | (((bytes[at + 8] as number) >> 4) & 3)] as number;
    // biome-ignore format: the id's layout, one group per line
    return String.fromCharCode(
      99, 97, 108, 108, 95, // "call_"
      high(bytes, at), low(bytes, at), high(bytes, at + 1), low(bytes, at + 1),
      high(bytes, at + 2), low(bytes, at + 2), high(bytes, at + 3), low(bytes, at + 3), 45,
      high(bytes, at + 4), low(bytes, at + 4), high(bytes, at + 5), low(bytes, at + 5), 45,
      52, low(bytes, at + 6), high(bytes, at + 7), low(bytes, at + 7), 45,
      variant, low(bytes, at + 8), high(bytes, at + 9), low(bytes, at + 9), 45,
      high(bytes, at + 10), low(bytes, at + 10), high(bytes, at + 11), low(bytes, at + 11),
      high(bytes, at + 12), low(bytes, at + 12), high(bytes, at + 13), low(bytes, at + 13),
      high(bytes, at + 14), low(bytes, at + 14), high(bytes, at + 15), low(bytes, at + 15),
    );
  }
}

// Module functions rather than closures inside next(): nothing allocated per id but the id.
function high(bytes: Uint8Array, index: number): number {
  return HEX[(bytes[index] as number) >> 4] as number;
}

function low(bytes: Uint8Array, index: number): number {
  return HEX[(bytes[index] as number) & 15] as number;
}
