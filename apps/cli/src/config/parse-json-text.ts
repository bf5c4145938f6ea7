import { CONFIG_ERROR_CODES, ConfigError } from "./config-error.js";
import { HIDDEN_KEY, isShowableKey } from "./credential-shape.js";

/** Where a problem sits in a text: 1-based line and column (in UTF-16 code units, as editors count). */
export interface TextPosition {
  line: number;
  column: number;
}

/**
 * Parses JSON text strictly, as a configuration file: a syntax error throws `ConfigError`
 * (`config_invalid_json`) with its line and column, and a key repeated within one object throws
 * `config_invalid` (JSON.parse would silently keep the last one, hiding the first from review).
 * Messages never quote the text, which may hold credentials.
 */
export function parseJsonText(text: string, file: string): unknown {
  const source = withoutByteOrderMark(text);
  scanOrThrow(source, file);
  try {
    return JSON.parse(source);
  } catch (cause) {
    // Unreachable if the scanner agrees with JSON.parse; kept so a disagreement still fails closed.
    throw new ConfigError(CONFIG_ERROR_CODES.invalidJson, `${file}: the file is not valid JSON.`, {
      file,
      cause,
    });
  }
}

/**
 * Where each value of JSON text sits: the span tree of `text`, offsets into `text` itself (a
 * byte-order mark counted). Checked as strictly as {@link parseJsonText}, with the same errors.
 * For editing a file in place: a change touches only the characters it must.
 */
export function scanJsonSpans(text: string, file: string): JsonSpan {
  const skipped = text.length - withoutByteOrderMark(text).length;
  return shiftSpan(scanOrThrow(text.slice(skipped), file), skipped);
}

/** One value of a JSON text and where it sits: `start` is its first character, `end` one past its last. */
export type JsonSpan =
  | { kind: "object"; start: number; end: number; members: JsonMember[] }
  | { kind: "array"; start: number; end: number; items: JsonSpan[] }
  | { kind: "scalar"; start: number; end: number };

/** One property of an object in a {@link JsonSpan}: its key, where the quoted key ends, and its value. */
export interface JsonMember {
  key: string;
  keyStart: number;
  keyEnd: number;
  value: JsonSpan;
}

// Editors on some platforms save a byte-order mark; it is not JSON but carries no meaning either.
function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function scanOrThrow(source: string, file: string): JsonSpan {
  const scanned = new JsonScanner(source).scan();
  if ("span" in scanned) return scanned.span;
  const problem = scanned;
  const { line, column } = positionAt(source, problem.offset);
  const code = problem.kind === "duplicate_key" ? "config_invalid" : "config_invalid_json";
  throw new ConfigError(code, `${file}:${line}:${column}: ${problem.message}.`, { file });
}

function shiftSpan(span: JsonSpan, by: number): JsonSpan {
  if (by === 0) return span;
  const start = span.start + by;
  const end = span.end + by;
  if (span.kind === "object") {
    const members = span.members.map((member) => ({
      key: member.key,
      keyStart: member.keyStart + by,
      keyEnd: member.keyEnd + by,
      value: shiftSpan(member.value, by),
    }));
    return { kind: "object", start, end, members };
  }
  if (span.kind === "array")
    return { kind: "array", start, end, items: span.items.map((item) => shiftSpan(item, by)) };
  return { kind: "scalar", start, end };
}

/** The 1-based line and column of a UTF-16 offset in `text`. */
export function positionAt(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index += 1) {
    if (text.charCodeAt(index) === 0x0a) {
      line += 1;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

interface ScanProblem {
  kind: "syntax" | "duplicate_key";
  offset: number;
  message: string;
}

class ScanStop extends Error {
  constructor(readonly problem: ScanProblem) {
    super(problem.message);
  }
}

const MAX_DEPTH = 200;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const SHOWN_CHARACTERS: ReadonlySet<string> = new Set(["{", "}", "[", "]", ",", ":", '"']);

/** A validating pass over JSON text (RFC 8259) that remembers where it stopped; it builds spans, not values. */
class JsonScanner {
  #index = 0;

  constructor(readonly text: string) {}

  scan(): ScanProblem | { span: JsonSpan } {
    try {
      const span = this.#value(0);
      this.#skipWhitespace();
      if (this.#index < this.text.length) this.#fail("unexpected content after the end of the JSON value");
      return { span };
    } catch (error) {
      if (error instanceof ScanStop) return error.problem;
      throw error;
    }
  }

  #value(depth: number): JsonSpan {
    if (depth > MAX_DEPTH) this.#fail(`values are nested more than ${MAX_DEPTH} levels deep`);
    this.#skipWhitespace();
    const start = this.#index;
    const character = this.text[start];
    if (character === undefined) this.#fail("unexpected end of the file; expected a value");
    if (character === "{") return { kind: "object", start, members: this.#object(depth), end: this.#index };
    if (character === "[") return { kind: "array", start, items: this.#array(depth), end: this.#index };
    if (character === '"') this.#string();
    else if (character === "-" || (character >= "0" && character <= "9")) this.#number();
    else this.#literal(character);
    return { kind: "scalar", start, end: this.#index };
  }

  #literal(character: string): void {
    for (const word of ["true", "false", "null"]) {
      if (this.text.startsWith(word, this.#index)) {
        this.#index += word.length;
        return;
      }
    }
    this.#fail(`${describe(character)}; expected a value (strings need double quotes)`);
  }

  #object(depth: number): JsonMember[] {
    this.#index += 1;
    const keys = new Set<string>();
    const members: JsonMember[] = [];
    this.#skipWhitespace();
    if (this.text[this.#index] === "}") {
      this.#index += 1;
      return members;
    }
    for (;;) {
      this.#skipWhitespace();
      const start = this.#index;
      const character = this.text[start];
      if (character !== '"') {
        const hint = character === "}" ? " (JSON allows no comma after the last property)" : "";
        this.#fail(`${describe(character)}; expected a property name in double quotes${hint}`);
      }
      this.#string();
      const key = JSON.parse(this.text.slice(start, this.#index)) as string;
      if (keys.has(key)) {
        const shown = isShowableKey(key) ? JSON.stringify(key) : HIDDEN_KEY;
        this.#fail(`duplicate key ${shown}; each key may appear only once in an object`, {
          offset: start,
          kind: "duplicate_key",
        });
      }
      keys.add(key);
      const keyEnd = this.#index;
      this.#skipWhitespace();
      if (this.text[this.#index] !== ":") {
        this.#fail(`${describe(this.text[this.#index])}; expected ':' after a property name`);
      }
      this.#index += 1;
      members.push({ key, keyStart: start, keyEnd, value: this.#value(depth + 1) });
      this.#skipWhitespace();
      const next = this.text[this.#index];
      this.#index += 1;
      if (next === "}") return members;
      if (next !== ",") {
        this.#index -= 1;
        this.#fail(`${describe(next)}; expected ',' or '}' after a property value`);
      }
    }
  }

  #array(depth: number): JsonSpan[] {
    this.#index += 1;
    const items: JsonSpan[] = [];
    this.#skipWhitespace();
    if (this.text[this.#index] === "]") {
      this.#index += 1;
      return items;
    }
    for (;;) {
      this.#skipWhitespace();
      if (this.text[this.#index] === "]") {
        this.#fail("']' after a comma; JSON allows no comma after the last item");
      }
      items.push(this.#value(depth + 1));
      this.#skipWhitespace();
      const next = this.text[this.#index];
      this.#index += 1;
      if (next === "]") return items;
      if (next !== ",") {
        this.#index -= 1;
        this.#fail(`${describe(next)}; expected ',' or ']' after an array item`);
      }
    }
  }

  #string(): void {
    const start = this.#index;
    this.#index += 1;
    for (;;) {
      const code = this.text.charCodeAt(this.#index);
      if (Number.isNaN(code)) this.#fail("unterminated string", { offset: start });
      if (code === 0x22) {
        this.#index += 1;
        return;
      }
      if (code < 0x20) {
        this.#fail("a control character (such as a line break) inside a string; escape it, e.g. \\n");
      }
      if (code === 0x5c) {
        const escaped = this.text[this.#index + 1];
        if (escaped === "u") {
          if (!HEX4.test(this.text.slice(this.#index + 2, this.#index + 6))) {
            this.#fail("an invalid \\u escape");
          }
          this.#index += 6;
        } else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) {
          this.#index += 2;
        } else {
          this.#fail("an invalid escape sequence in a string");
        }
      } else {
        this.#index += 1;
      }
    }
  }

  #number(): void {
    NUMBER.lastIndex = this.#index;
    const match = NUMBER.exec(this.text);
    if (!match) this.#fail("an invalid number");
    this.#index += match[0].length;
  }

  #skipWhitespace(): void {
    for (;;) {
      const character = this.text[this.#index];
      if (character !== " " && character !== "\t" && character !== "\n" && character !== "\r") return;
      this.#index += 1;
    }
  }

  #fail(message: string, options: { offset?: number; kind?: ScanProblem["kind"] } = {}): never {
    throw new ScanStop({ kind: options.kind ?? "syntax", offset: options.offset ?? this.#index, message });
  }
}

function describe(character: string | undefined): string {
  if (character === undefined) return "unexpected end of the file";
  // Only structural characters are named: anything else might be part of a secret.
  return SHOWN_CHARACTERS.has(character) ? `unexpected '${character}'` : "unexpected character";
}
