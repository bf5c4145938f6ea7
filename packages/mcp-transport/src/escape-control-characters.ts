// Controls (C0, DEL, C1) and invisible format characters, which include the bidirectional
// overrides that make text render differently from what the server sent ("Trojan Source").
const UNSAFE_CHARACTERS = /[\p{Cc}\p{Cf}]/gu;

/** Makes untrusted text safe to show in a terminal or log: control and format characters (not tab or newline) become escapes. */
export function escapeControlCharacters(text: string): string {
  return text.replace(UNSAFE_CHARACTERS, (character) => {
    if (character === "\n" || character === "\t") return character;
    const code = character.codePointAt(0) ?? 0;
    if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
    return code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\u{${code.toString(16)}}`;
  });
}
