/**
 * `pattern` from an untrusted server runs on model input, so it never runs on a backtracking engine.
 * A pattern is parsed as ECMA-262 with the `u` flag (what Ajv compiles it with) and translated into
 * RE2 syntax for re2js, which matches in linear time. The translation spells out every construct whose
 * meaning differs between the two (`.`, `\s`, negated classes, literals as `\x{…}`), and refuses the
 * ones RE2 cannot express (backreferences, lookaround) or that would depend on the two engines'
 * Unicode versions agreeing (`\p{…}`). Its semantics are held to V8's by test/schema-pattern.test.ts:
 * change it only together with those tests.
 */

import { messageOf } from "@agent/base";
import { RE2JS } from "re2js";
import {
  type CodePointSet,
  classEscape,
  codePoint,
  complement,
  emitCodePoint,
  emitSet,
  LINE_TERMINATORS,
  type ReadonlyCodePointSet,
  union,
} from "./code-point-set.js";

/** A pattern ready to test strings with (unanchored search, as `RegExp.prototype.test`), or why not. */
export type CompiledPattern =
  | {
      ok: true;
      test: (value: string) => boolean;
      /** The longest string (UTF-16 code units) {@link MAX_MATCH_WORK} lets this pattern be matched on. */
      maxLength: number;
    }
  | { ok: false; reason: string };

/** The longest pattern accepted, in UTF-16 code units; longer ones are refused, not truncated. */
export const MAX_PATTERN_LENGTH = 10_000;

/**
 * The most steps a pattern may unroll to (`a{255}` is 256). re2js matches in time linear in the input,
 * but once its DFA gives up, each character costs time in proportion to this size: it is bounded too.
 */
export const MAX_PATTERN_SIZE = 1_000;

/**
 * How much matching one string may cost: its length times the pattern's size (about a second at worst).
 * A longer string is refused, not matched: at size 20 the limit is 250,000 characters.
 */
export const MAX_MATCH_WORK = 5_000_000;

/** How deeply groups may nest; deeper ones are refused rather than risking the parser's stack. */
const MAX_GROUP_DEPTH = 100;

/** Compiles an ECMA-262 (`u` flag) pattern for the linear-time engine. */
export function compilePattern(source: string): CompiledPattern {
  if (source.length > MAX_PATTERN_LENGTH) {
    return { ok: false, reason: `is longer than ${MAX_PATTERN_LENGTH} characters` };
  }
  try {
    // Only parsed here, never run: V8 checks the syntax exactly as Ajv would see it.
    new RegExp(source, "u");
  } catch (error) {
    return {
      ok: false,
      reason: `is not a valid ECMA-262 regular expression with the "u" flag (${messageOf(error)})`,
    };
  }
  const translated = translate(source);
  if (!translated.ok) return translated;
  try {
    const compiled = RE2JS.compile(translated.re2);
    const maxLength = Math.floor(MAX_MATCH_WORK / Math.max(1, translated.size));
    return { ok: true, test: (value) => compiled.test(value), maxLength };
  } catch (error) {
    return { ok: false, reason: `cannot be compiled by the linear-time engine (${messageOf(error)})` };
  }
}

const CONTROL_ESCAPES: Readonly<Record<string, number>> = { f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b };

type Translation = { ok: true; re2: string; size: number } | { ok: false; reason: string };

/** Translated pattern text, and the number of steps its repetitions unroll to. */
interface Piece {
  text: string;
  size: number;
}

class Unsupported extends Error {}

function translate(source: string): Translation {
  try {
    const { text, size } = new PatternParser(source).pattern();
    return { ok: true, re2: text, size };
  } catch (error) {
    if (error instanceof Unsupported) return { ok: false, reason: error.message };
    throw error;
  }
}

/**
 * A recursive-descent parser over code points for patterns V8 already accepted with the `u` flag, so it
 * never has to diagnose syntax errors: it emits RE2 syntax, or throws {@link Unsupported}.
 */
class PatternParser {
  readonly #chars: string[];
  #index = 0;
  #depth = 0;

  constructor(source: string) {
    // Iterating a string yields code points: with the `u` flag a surrogate pair is one character.
    this.#chars = Array.from(source);
  }

  pattern(): Piece {
    const result = this.#disjunction();
    if (this.#index < this.#chars.length) throw new Unsupported(`has an unexpected ")"`);
    return result;
  }

  #peek(offset = 0): string | undefined {
    return this.#chars[this.#index + offset];
  }

  #next(): string {
    const char = this.#chars[this.#index];
    if (char === undefined) throw new Unsupported("ends unexpectedly");
    this.#index += 1;
    return char;
  }

  #disjunction(): Piece {
    const alternatives = [this.#alternative()];
    while (this.#peek() === "|") {
      this.#index += 1;
      alternatives.push(this.#alternative());
    }
    return {
      text: alternatives.map((alternative) => alternative.text).join("|"),
      size: alternatives.reduce((total, alternative) => total + alternative.size, 0),
    };
  }

  #alternative(): Piece {
    const result: Piece = { text: "", size: 0 };
    while (this.#index < this.#chars.length && this.#peek() !== "|" && this.#peek() !== ")") {
      const term = this.#term();
      result.text += term.text;
      result.size += term.size;
    }
    return result;
  }

  #term(): Piece {
    const char = this.#peek();
    if (char === "^" || char === "$") {
      this.#index += 1;
      return { text: char, size: 1 };
    }
    if (char === "\\" && this.#peek(1) === "b") {
      this.#index += 2;
      // Both engines define word boundaries over ASCII [0-9A-Za-z_] (no `i` flag here).
      return { text: "\\b", size: 1 };
    }
    if (char === "\\" && this.#peek(1) === "B") {
      // V8 also tries the position inside a surrogate pair, where \B holds ("0😀a" matches /\B/u).
      throw new Unsupported("uses \\B, which V8 (and so Ajv) also matches inside a surrogate pair");
    }
    if (char === "(" && this.#peek(1) === "?") {
      const kind = this.#peek(2);
      const behind = kind === "<" && (this.#peek(3) === "=" || this.#peek(3) === "!");
      if (kind === "=" || kind === "!" || behind) throw new Unsupported("uses a lookaround assertion");
    }
    const atom = this.#atom();
    const quantified = this.#quantifier(atom.size);
    if (quantified.size > MAX_PATTERN_SIZE) {
      // Matching costs time per input character in proportion to this size, linear or not.
      throw new Unsupported(`unrolls its repetitions to more than ${MAX_PATTERN_SIZE} steps`);
    }
    return { text: atom.text + quantified.text, size: quantified.size };
  }

  #atom(): Piece {
    const char = this.#next();
    if (char === "(") return this.#group();
    let text: string;
    if (char === ".") text = emitSet(complement(LINE_TERMINATORS));
    else if (char === "[") text = this.#characterClass();
    else if (char === "\\") text = this.#atomEscape();
    else text = emitCodePoint(codePoint(char));
    return { text, size: 1 };
  }

  #group(): Piece {
    if (this.#peek() === "?") {
      this.#index += 1;
      const kind = this.#next();
      if (kind === "<") {
        // A named group: only its matching matters here, so it becomes non-capturing.
        while (this.#next() !== ">");
      } else if (kind !== ":") {
        throw new Unsupported(`uses the group syntax "(?${kind}"`);
      }
    }
    this.#depth += 1;
    if (this.#depth > MAX_GROUP_DEPTH) throw new Unsupported(`nests groups deeper than ${MAX_GROUP_DEPTH}`);
    const inner = this.#disjunction();
    this.#depth -= 1;
    if (this.#next() !== ")") throw new Unsupported(`has an unclosed group`);
    return { text: `(?:${inner.text})`, size: inner.size + 1 };
  }

  /** The quantifier after an atom of `size`, and the size of the atom once repeated. */
  #quantifier(size: number): Piece {
    const char = this.#peek();
    let result: Piece;
    if (char === "*" || char === "+" || char === "?") {
      this.#index += 1;
      result = { text: char, size: size + 1 };
    } else if (char === "{") {
      const start = this.#index;
      while (this.#next() !== "}");
      const text = this.#chars.slice(start, this.#index).join("");
      // {n}, {n,} or {n,m}: the engine unrolls the counted part.
      const bounds = text.slice(1, -1).split(",");
      const count = Number(bounds[1] === undefined || bounds[1] === "" ? bounds[0] : bounds[1]);
      result = { text, size: size * Math.max(1, count) + 1 };
    } else {
      return { text: "", size };
    }
    // Laziness changes which match is found, never whether one is: `test` only asks the latter.
    if (this.#peek() === "?") this.#index += 1;
    return result;
  }

  #atomEscape(): string {
    const char = this.#next();
    const set = classEscape(char);
    if (set) return emitSet(set);
    if (char === "k")
      throw new Unsupported("uses a named backreference, which the linear-time engine cannot match");
    if (char >= "1" && char <= "9") {
      throw new Unsupported("uses a backreference, which the linear-time engine cannot match");
    }
    return emitCodePoint(this.#characterEscape(char));
  }

  #characterClass(): string {
    const negated = this.#peek() === "^";
    if (negated) this.#index += 1;
    let set: CodePointSet = [];
    while (this.#peek() !== "]") {
      const first = this.#classAtom();
      if (typeof first === "number" && this.#peek() === "-" && this.#peek(1) !== "]") {
        this.#index += 1;
        const last = this.#classAtom();
        // V8 has already refused a range with a class escape at either end.
        if (typeof last !== "number") throw new Unsupported("has a range ending in a class escape");
        set = union(set, [[first, last]]);
      } else {
        set = union(set, typeof first === "number" ? [[first, first]] : first);
      }
    }
    this.#index += 1;
    // Emitted as a positive set in both cases, so RE2's own reading of `[^…]` never matters.
    return emitSet(negated ? complement(set) : set);
  }

  #classAtom(): number | ReadonlyCodePointSet {
    const char = this.#next();
    if (char !== "\\") return codePoint(char);
    const escaped = this.#next();
    const set = classEscape(escaped);
    if (set) return set;
    if (escaped === "b") return 0x08;
    if (escaped === "-") return 0x2d;
    return this.#characterEscape(escaped);
  }

  /** The code point of a CharacterEscape whose backslash and first character were consumed. */
  #characterEscape(char: string): number {
    const control = CONTROL_ESCAPES[char];
    if (control !== undefined) return control;
    if (char === "0") return 0;
    if (char === "c") return codePoint(this.#next()) % 32;
    if (char === "x") return this.#hex(2);
    if (char === "u") return this.#unicodeEscape();
    if (char === "p" || char === "P") {
      throw new Unsupported(
        `uses a Unicode property escape (\\${char}{…}), whose tables differ between the engines' Unicode versions`,
      );
    }
    // With the `u` flag an identity escape is a syntax character or "/": the character itself.
    return codePoint(char);
  }

  #unicodeEscape(): number {
    if (this.#peek() === "{") {
      this.#index += 1;
      let digits = "";
      while (this.#peek() !== "}") digits += this.#next();
      this.#index += 1;
      return Number.parseInt(digits, 16);
    }
    const unit = this.#hex(4);
    const isLead = unit >= 0xd800 && unit <= 0xdbff;
    if (isLead && this.#peek() === "\\" && this.#peek(1) === "u" && this.#peek(2) !== "{") {
      const trail = Number.parseInt(this.#chars.slice(this.#index + 2, this.#index + 6).join(""), 16);
      if (trail >= 0xdc00 && trail <= 0xdfff) {
        // With the `u` flag an escaped surrogate pair is one code point.
        this.#index += 6;
        return (unit - 0xd800) * 0x400 + (trail - 0xdc00) + 0x10000;
      }
    }
    return unit;
  }

  #hex(length: number): number {
    let digits = "";
    for (let count = 0; count < length; count += 1) digits += this.#next();
    return Number.parseInt(digits, 16);
  }
}
