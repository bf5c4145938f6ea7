/**
 * `pattern` runs on re2js (linear time) but must mean what Ajv means by it: ECMA-262 with the `u` flag,
 * unanchored. These tests hold the translation to V8's own RegExp, construct by construct and on
 * thousands of generated patterns and strings, and show the catastrophic case finishing.
 */
import { describe, expect, it } from "vitest";
import { compilePattern, MAX_MATCH_WORK, MAX_PATTERN_LENGTH } from "../src/schema/ecma-pattern.js";
import { convertInputSchema } from "../src/schema/index.js";
import { createRandom, type Random } from "./fixtures/json-generator.js";

function compiled(source: string): (value: string) => boolean {
  const pattern = compilePattern(source);
  if (!pattern.ok) throw new Error(`${source}: ${pattern.reason}`);
  return pattern.test;
}

/** Code points around every boundary the translated classes have, surrogates and the top of the range. */
const CODE_POINTS: number[] = [
  ...range(0, 0x3100),
  ...range(0xd7f0, 0xe010),
  ...range(0xfef0, 0x10100),
  ...range(0x1f5f0, 0x1f610),
  ...range(0x10ff00, 0x110000),
];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, index) => from + index);
}

describe("each construct whose meaning differs between the engines matches as V8 does", () => {
  it.each([".", "\\s", "\\S", "\\d", "\\D", "\\w", "\\W", "[^a]", "[^\\s\\d]", "[\\S]", "[^]", "[]", "\\b"])(
    "%s on every code point near a boundary",
    (source) => {
      const reference = new RegExp(source, "u");
      const test = compiled(source);
      const differences = CODE_POINTS.filter((point) => {
        const text = String.fromCodePoint(point);
        return reference.test(text) !== test(text);
      });
      expect(differences.map((point) => point.toString(16))).toEqual([]);
    },
  );

  it.each([
    ["^a$", ["a", "a\n", "\na", "ba", "a\u2028"]],
    ["^.$", ["\u{1F600}", "\uD800", "\uDC00", "\uDE00\uD83D", "\n", "\r", "\u2028", "é", "e\u0301"]],
    ["^..$", ["\u{1F600}", "\uDE00\uD83D", "ab"]],
    ["\\uD83D", ["\u{1F600}", "\uD83D", "\uD83Dx"]],
    ["^\\uD83D\\uDE00$", ["\u{1F600}", "\uD83D\uDE00"]],
    ["^\\u{1F600}+$", ["\u{1F600}\u{1F600}", "\u{1F600}a"]],
    ["[\\u{1F600}-\\u{1F64F}]", ["\u{1F600}", "\u{1F650}", "\uD83D"]],
    ["[\\uD800-\\uDFFF]", ["\uD800", "\u{1F600}", "a"]],
    ["\\bfoo\\b", ["foo", "a foo", "éfooé", "_foo", "foo1"]],
    ["^[\\b]$", ["\u0008", "b"]],
    ["^\\cJ\\0\\x41\\t\\v\\f$", ["\n\u0000A\t\u000b\u000c"]],
    ["^[a-c-e]$", ["b", "-", "e", "d"]],
    ["a|", ["", "b"]],
    ["^(?:)$", ["", "a"]],
    ["^(?<year>\\d{4})-(\\d{2})$", ["2024-01", "24-01"]],
    ["^\\/\\.\\*\\$\\^\\(\\)\\[\\]\\{\\}\\|\\?\\+\\\\$", ["/.*$^()[]{}|?+\\"]],
    ["^[\\-\\]\\\\]+$", ["-]\\", "a"]],
    ["^x{2,3}?$", ["x", "xx", "xxx", "xxxx"]],
    ["^(ab|a)(c|bcd)(d*)$", ["abcd", "abcdd", "acd"]],
  ] as const)("%s", (source, inputs) => {
    const reference = new RegExp(source, "u");
    const test = compiled(source);
    for (const input of inputs) expect([input, test(input)]).toEqual([input, reference.test(input)]);
  });
});

describe("what re2js cannot express, or would express differently, is refused with a reason", () => {
  it.each([
    ["(a)\\1", "uses a backreference, which the linear-time engine cannot match"],
    ["(?<n>a)\\k<n>", "uses a named backreference, which the linear-time engine cannot match"],
    ["a(?=b)", "uses a lookaround assertion"],
    ["a(?!b)", "uses a lookaround assertion"],
    ["(?<=a)b", "uses a lookaround assertion"],
    ["(?<!a)b", "uses a lookaround assertion"],
    [
      "\\p{L}",
      "uses a Unicode property escape (\\p{…}), whose tables differ between the engines' Unicode versions",
    ],
    [
      "[\\P{Script=Greek}]",
      "uses a Unicode property escape (\\P{…}), whose tables differ between the engines' Unicode versions",
    ],
    ["a{1001}", "unrolls its repetitions to more than 1000 steps"],
    ["(a{100}){100}", "unrolls its repetitions to more than 1000 steps"],
    ["a\\B", "uses \\B, which V8 (and so Ajv) also matches inside a surrogate pair"],
    ["(".repeat(101) + ")".repeat(101), "nests groups deeper than 100"],
    ["x.{1000}", "unrolls its repetitions to more than 1000 steps"],
    ["(?:[a-z]{10}-){100}", "unrolls its repetitions to more than 1000 steps"],
  ])("%s", (source, reason) => {
    expect(compilePattern(source)).toEqual({ ok: false, reason });
  });

  it.each(["[", "a{2,1}", "\\-", "{", "a**", "\\u{110000}", "\\c"])(
    "%s is not ECMA-262 with the u flag",
    (source) => {
      const pattern = compilePattern(source);
      expect(pattern.ok).toBe(false);
      if (!pattern.ok)
        expect(pattern.reason).toMatch(/^is not a valid ECMA-262 regular expression with the "u" flag/);
    },
  );

  // Modifier groups are ECMA-262 from ES2025 (V8 in Node 24 compiles them, Node 20 and 22 do not):
  // refused on every line, as invalid before and as a group syntax the checker does not carry after.
  it("(?i:a) is refused on every Node line", () => {
    const pattern = compilePattern("(?i:a)");
    expect(pattern.ok).toBe(false);
    if (!pattern.ok) {
      expect(pattern.reason).toMatch(
        /^is not a valid ECMA-262 regular expression with the "u" flag|^uses the group syntax "\(\?i"$/,
      );
    }
  });

  it("refuses a pattern longer than the limit", () => {
    expect(compilePattern("a".repeat(MAX_PATTERN_LENGTH + 1))).toEqual({
      ok: false,
      reason: `is longer than ${MAX_PATTERN_LENGTH} characters`,
    });
  });

  it("names the keyword's pointer when a tool's schema has such a pattern", () => {
    const conversion = convertInputSchema({
      type: "object",
      properties: { q: { type: "string", pattern: "(a)\\1" } },
    });
    expect(conversion).toMatchObject({
      ok: false,
      reason: '#/properties/q: "pattern" uses a backreference, which the linear-time engine cannot match',
    });
  });
});

describe("a catastrophic pattern does not stall validation", () => {
  // With a backtracking engine this input takes longer than the test's timeout; re2js is linear.
  const input = `${"a".repeat(50_000)}!`;

  it("(a+)+$ on 50,000 characters answers, correctly", () => {
    const test = compiled("(a+)+$");
    expect(test(input)).toBe(false);
    expect(test("a".repeat(50_000))).toBe(true);
  });

  it("refuses, without matching, a string longer than the matching budget for its pattern", () => {
    const pattern = compilePattern("^[a-z0-9]{1,255}$");
    if (!pattern.ok) throw new Error(pattern.reason);
    // ^ (1) + a class repeated up to 255 times (256) + $ (1)
    expect(pattern.maxLength).toBe(Math.floor(MAX_MATCH_WORK / 258));
    const conversion = convertInputSchema({
      type: "object",
      properties: { q: { type: "string", pattern: "^[a-z0-9]{1,255}$" } },
    });
    if (!conversion.ok) throw new Error(conversion.reason);
    const parsed = conversion.schema.safeParse({ q: "a".repeat(pattern.maxLength + 1) });
    expect(parsed.error?.issues[0]?.message).toMatch(/^is longer than \d+ characters, the most the pattern/);
  });

  it("through a converted tool's validator too", () => {
    const conversion = convertInputSchema({
      type: "object",
      properties: { q: { type: "string", pattern: "^(a|aa)+$" } },
      required: ["q"],
    });
    if (!conversion.ok) throw new Error(conversion.reason);
    expect(conversion.schema.safeParse({ q: input }).success).toBe(false);
    expect(conversion.schema.safeParse({ q: "a".repeat(50_000) }).success).toBe(true);
  });
});

const ALPHABET = [
  "a",
  "b",
  "A",
  "é",
  "\u{1F600}",
  "\uD800",
  "\uDC00",
  "0",
  "9",
  "_",
  " ",
  "\n",
  "\r",
  "\u2028",
];
const MORE = ["\u00a0", "\u000b", "\u3000", "\ufeff", ".", "-", "\u0008", "\u0000", "x", "é"];
const ATOMS = [
  "a",
  "b",
  "é",
  "\u{1F600}",
  "0",
  "_",
  " ",
  ".",
  "\\d",
  "\\D",
  "\\w",
  "\\W",
  "\\s",
  "\\S",
  "\\n",
  "\\t",
  "\\v",
  "\\0",
  "\\u00e9",
  "\\u{1F600}",
  "\\uD83D\\uDE00",
  "\\uD800",
  "\\x41",
  "\\cJ",
  "\\/",
  "\\.",
];
const CLASS_ITEMS = [
  "a-z",
  "\\d",
  "\\s",
  "\\S",
  "\\W",
  "é",
  "\\u{1F600}-\\u{1F64F}",
  "\\uD800-\\uDFFF",
  "_",
  "\\-",
  "\\b",
  "0-9",
  "A",
];
const QUANTIFIERS = ["", "", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?", "??"];

function randomPattern(random: Random, depth = 0): string {
  const terms = Array.from({ length: 1 + random.int(3) }, () => randomTerm(random, depth));
  const alternative = terms.join("");
  return random.chance(0.15) && depth < 2
    ? `${alternative}|${randomPattern(random, depth + 1)}`
    : alternative;
}

function randomTerm(random: Random, depth: number): string {
  const roll = random.next();
  if (roll < 0.08) return random.pick(["^", "$", "\\b"]);
  let atom: string;
  if (roll < 0.5) atom = random.pick(ATOMS);
  else if (roll < 0.75) {
    const items = Array.from({ length: 1 + random.int(3) }, () => random.pick(CLASS_ITEMS)).join("");
    atom = `[${random.chance(0.4) ? "^" : ""}${items}]`;
  } else if (depth < 3) {
    atom = `${random.pick(["(", "(?:", "(?<g>"])}${randomPattern(random, depth + 1)})`;
  } else atom = random.pick(ATOMS);
  return atom + random.pick(QUANTIFIERS);
}

function randomString(random: Random): string {
  return Array.from({ length: random.int(7) }, () => random.pick(random.chance(0.7) ? ALPHABET : MORE)).join(
    "",
  );
}

describe("generated patterns match as V8 matches them", () => {
  it("agrees on 2,000 patterns × 30 strings", () => {
    const random = createRandom(7);
    const problems: string[] = [];
    let matched = 0;
    let tried = 0;
    for (let index = 0; index < 2_000; index += 1) {
      const source = randomPattern(random);
      let reference: RegExp;
      try {
        reference = new RegExp(source, "u");
      } catch {
        // A named group used twice, say: V8 refuses it, and so must we.
        if (compilePattern(source).ok) problems.push(`${JSON.stringify(source)}: accepted, V8 refuses it`);
        continue;
      }
      const pattern = compilePattern(source);
      if (!pattern.ok) {
        problems.push(`${JSON.stringify(source)}: ${pattern.reason}`);
        continue;
      }
      for (let count = 0; count < 30; count += 1) {
        const input = randomString(random);
        tried += 1;
        const expected = reference.test(input);
        if (expected) matched += 1;
        if (pattern.test(input) !== expected) {
          problems.push(`${JSON.stringify(source)} on ${JSON.stringify(input)}: V8 ${expected}`);
        }
      }
    }
    expect(problems).toEqual([]);
    // Both outcomes must be common, or agreement proves little.
    expect(matched).toBeGreaterThan(tried / 5);
    expect(matched).toBeLessThan((tried * 4) / 5);
  });
});
