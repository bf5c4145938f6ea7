// Decoding of the escapes a server may echo a secret in (percent, JSON and JavaScript escapes), with
// the offset each decoded character came from, so a match in the decoded text maps back to what to
// replace. Part of the redaction boundary: see redact.ts.

const SHORT_ESCAPES: Record<string, string> = Object.freeze({
  '"': '"',
  "\\": "\\",
  "/": "/",
  n: "\n",
  r: "\r",
  t: "\t",
});

/**
 * `text` with percent escapes (UTF-8, either hex case), `\uXXXX`, `\xXX` and JSON's short escapes
 * decoded, and for each UTF-16 unit of the result the offset in `text` it came from (plus one
 * entry for the end), so a match in the decoded text maps back to the characters to replace.
 */
export function decodeEscapes(text: string): { text: string; sources: Int32Array } {
  const parts: string[] = [];
  // Decoding only shortens: one entry per character of `text`, plus the end, is always enough.
  const sources = new Int32Array(text.length + 1);
  let length = 0;
  const emit = (characters: string, source: number, span: number): void => {
    parts.push(characters);
    for (let unit = 0; unit < characters.length; unit += 1) {
      sources[length] = source + (span === 0 ? unit : 0);
      length += 1;
    }
  };
  let index = 0;
  // The next of each escape character at or after `index`, searched again only once passed.
  let percent = -1;
  let backslash = -1;
  while (index < text.length) {
    if (percent !== text.length && percent < index) percent = indexOrEnd(text, "%", index);
    if (backslash !== text.length && backslash < index) backslash = indexOrEnd(text, "\\", index);
    const at = Math.min(percent, backslash);
    // Plain text up to the next escape character, copied in one piece.
    if (at > index) emit(text.slice(index, at), index, 0);
    if (at === text.length) break;
    const sequence = readEscape(text, at);
    if (sequence) {
      emit(sequence.text, at, sequence.end - at);
      index = sequence.end;
    } else {
      emit(text[at] ?? "", at, 0);
      index = at + 1;
    }
  }
  sources[length] = text.length;
  return { text: parts.join(""), sources };
}

function indexOrEnd(text: string, character: string, from: number): number {
  const index = text.indexOf(character, from);
  return index === -1 ? text.length : index;
}

/** The escape sequence at `start` (a `%` run, `\\u`, `\\x` or a short escape), decoded, or undefined. */
function readEscape(text: string, start: number): { text: string; end: number } | undefined {
  if (text[start] === "%") return percentRun(text, start);
  const next = text[start + 1] ?? "";
  const digits = next === "u" ? 4 : next === "x" ? 2 : 0;
  const hex = text.slice(start + 2, start + 2 + digits);
  if (digits > 0 && hex.length === digits && /^[0-9a-fA-F]+$/.test(hex)) {
    return { text: String.fromCharCode(Number.parseInt(hex, 16)), end: start + 2 + digits };
  }
  const short = SHORT_ESCAPES[next];
  return short === undefined ? undefined : { text: short, end: start + 2 };
}

/** The character a run of percent escapes at `start` spells (one UTF-8 sequence), or undefined. */
function percentRun(text: string, start: number): { text: string; end: number } | undefined {
  const byteAt = (offset: number): number | undefined => {
    if (text[offset] !== "%") return undefined;
    const hex = text.slice(offset + 1, offset + 3);
    return /^[0-9a-fA-F]{2}$/.test(hex) ? Number.parseInt(hex, 16) : undefined;
  };
  const lead = byteAt(start);
  if (lead === undefined) return undefined;
  if (lead < 0x80) return { text: String.fromCharCode(lead), end: start + 3 };
  const length = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  const bytes = [lead];
  for (let next = 1; next < length; next += 1) {
    const byte = byteAt(start + next * 3);
    if (byte === undefined) return undefined;
    bytes.push(byte);
  }
  return { text: new TextDecoder().decode(new Uint8Array(bytes)), end: start + length * 3 };
}
