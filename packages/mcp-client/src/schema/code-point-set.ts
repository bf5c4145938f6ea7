// Sets of code points for the pattern translation (ecma-pattern.ts): the ECMA-262 meanings of
// `\d`, `\w`, `\s` and `.`, set algebra, and their RE2 spelling. Held to V8's semantics by
// test/schema-pattern.test.ts, as the translation is.

/** A set of code points as sorted, disjoint, non-adjacent inclusive ranges. */
export type CodePointSet = [number, number][];
/** The constant classes below, and what only reads a set: never changed in place. */
export type ReadonlyCodePointSet = readonly (readonly [number, number])[];

const MAX_CODE_POINT = 0x10ffff;
const DIGITS: ReadonlyCodePointSet = Object.freeze([[0x30, 0x39]]);
const WORD: ReadonlyCodePointSet = Object.freeze([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]);
/** ECMA-262 WhiteSpace and LineTerminator; RE2's `\s` is only `[\t\n\f\r ]`. */
const SPACE: ReadonlyCodePointSet = Object.freeze([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
/** What `.` excludes without the `s` flag: the line terminators. */
export const LINE_TERMINATORS: ReadonlyCodePointSet = Object.freeze([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
]);

/** The set a class escape (`\d`, `\D`, `\w`, `\W`, `\s`, `\S`) stands for, or undefined for any other character. */
export function classEscape(char: string): ReadonlyCodePointSet | undefined {
  switch (char) {
    case "d":
      return DIGITS;
    case "D":
      return complement(DIGITS);
    case "w":
      return WORD;
    case "W":
      return complement(WORD);
    case "s":
      return SPACE;
    case "S":
      return complement(SPACE);
    default:
      return undefined;
  }
}

/** The code point of a one-code-point string. */
export function codePoint(char: string): number {
  return char.codePointAt(0) as number;
}

/** The union of two sets, as a new set (neither argument changes). */
export function union(left: ReadonlyCodePointSet, right: ReadonlyCodePointSet): CodePointSet {
  // Copies of the ranges: merging extends them in place, and the constant sets must stay as they are.
  const sorted = [...left, ...right]
    .map(([low, high]): [number, number] => [low, high])
    .sort((a, b) => a[0] - b[0]);
  const result: CodePointSet = [];
  for (const [low, high] of sorted) {
    const last = result[result.length - 1];
    if (last && low <= last[1] + 1) last[1] = Math.max(last[1], high);
    else result.push([low, high]);
  }
  return result;
}

/** Every code point not in `set`. */
export function complement(set: ReadonlyCodePointSet): CodePointSet {
  const result: CodePointSet = [];
  let next = 0;
  for (const [low, high] of set) {
    if (low > next) result.push([next, low - 1]);
    next = high + 1;
  }
  if (next <= MAX_CODE_POINT) result.push([next, MAX_CODE_POINT]);
  return result;
}

/** One code point in RE2 syntax, as `\x{…}`, whatever it is. */
export function emitCodePoint(value: number): string {
  return `\\x{${value.toString(16)}}`;
}

/** A set as an RE2 character class. */
export function emitSet(set: ReadonlyCodePointSet): string {
  // RE2 has no empty class; a class of every code point, negated, matches nothing.
  if (set.length === 0) return `[^\\x{0}-\\x{10ffff}]`;
  const ranges = set.map(([low, high]) =>
    low === high ? emitCodePoint(low) : `${emitCodePoint(low)}-${emitCodePoint(high)}`,
  );
  return `[${ranges.join("")}]`;
}
