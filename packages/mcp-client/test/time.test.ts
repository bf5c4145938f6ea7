import { describe, expect, it } from "vitest";
import { since } from "../src/time.js";

describe("since", () => {
  it("gives the milliseconds since a performance.now() reading, to the microsecond", () => {
    const started = performance.now() - 12.3456789;
    const elapsed = since(started);
    expect(elapsed).toBeGreaterThanOrEqual(12.346);
    const microseconds = elapsed * 1000;
    expect(Math.abs(microseconds - Math.round(microseconds))).toBeLessThan(1e-6);
  });

  it("is never negative for a reading taken before it", () => {
    expect(since(performance.now())).toBeGreaterThanOrEqual(0);
  });
});
