import { describe, expect, it } from "vitest";
import { CallIds } from "../src/call-ids.js";

const UUID_V4 = /^call_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("CallIds", () => {
  it("makes call_<uuid v4> ids, all different, across many refills of its random bytes", () => {
    const ids = new CallIds();
    const made = Array.from({ length: 5000 }, () => ids.next());
    for (const id of made) expect(id).toMatch(UUID_V4);
    expect(new Set(made).size).toBe(made.length);
  });

  it("uses every hex digit in every random position (the bytes really are random)", () => {
    const ids = new CallIds();
    const seen = Array.from({ length: 41 }, () => new Set<string>());
    for (let index = 0; index < 2000; index += 1) {
      const id = ids.next();
      for (let position = 0; position < id.length; position += 1) seen[position]?.add(id[position] as string);
    }
    const sizes = seen.map((digits) => digits.size);
    const fixed = new Set([0, 1, 2, 3, 4, 13, 18, 19, 23, 28]);
    sizes.forEach((size, position) => {
      if (position === 24) expect(size).toBe(4);
      else expect(size).toBe(fixed.has(position) ? 1 : 16);
    });
  });
});
