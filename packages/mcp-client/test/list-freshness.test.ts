/**
 * How long a listing may be taken as current: the caching hints its pages carry, combined the
 * strictest way, and clamped by the connection's bounds; only a stateless server is held to them.
 */
import { describe, expect, it } from "vitest";
import {
  type CacheHints,
  clampTtl,
  combineCacheHints,
  combineOptionalHints,
  type FreshnessBounds,
  ListFreshness,
  readCacheHints,
} from "../src/list-freshness.js";

/**
 * A freshness on a clock the test moves by hand, that has seen one listing: `staleAfter` says whether
 * it is stale after each of the waits, in order.
 */
function listedOnce(bounds: FreshnessBounds, hints: CacheHints, stateless: boolean) {
  let now = 0;
  const freshness = new ListFreshness(bounds, () => now);
  freshness.listed(hints, stateless);
  const staleAfter = (...waits: number[]) =>
    waits.map((ms) => {
      now += ms;
      return freshness.isStale();
    });
  return { freshness, staleAfter };
}

describe("readCacheHints", () => {
  it("reads a page's ttlMs and cacheScope, whole milliseconds only", () => {
    expect(readCacheHints({ ttlMs: 1500.7, cacheScope: "public" })).toEqual({ ttlMs: 1500, scope: "public" });
  });

  it("reads what a server did not send, or sent malformed, as immediately stale and private", () => {
    for (const page of [undefined, {}, { ttlMs: -5 }, { ttlMs: "60000" }, { ttlMs: Number.NaN }, "page"]) {
      expect(readCacheHints(page)).toEqual({ ttlMs: 0, scope: "private" });
    }
    expect(readCacheHints({ ttlMs: 10, cacheScope: "shared" }).scope).toBe("private");
  });
});

describe("combining hints", () => {
  it("keeps the shorter lifetime, and one private page makes the listing private", () => {
    const long = { ttlMs: 60_000, scope: "public" as const };
    const short = { ttlMs: 5_000, scope: "private" as const };
    expect(combineCacheHints(long, short)).toEqual({ ttlMs: 5_000, scope: "private" });
    expect(combineCacheHints(long, long)).toEqual(long);
  });

  it("takes the side that was listed when the other was not", () => {
    const hints = { ttlMs: 5_000, scope: "public" as const };
    expect(combineOptionalHints(hints, undefined)).toEqual(hints);
    expect(combineOptionalHints(undefined, hints)).toEqual(hints);
    expect(combineOptionalHints(undefined, undefined)).toBeUndefined();
  });
});

describe("clampTtl", () => {
  it("holds a lifetime between the floor and the ceiling", () => {
    const bounds = { minMs: 1_000, maxMs: 60_000 };
    expect(clampTtl(0, bounds)).toBe(1_000);
    expect(clampTtl(30_000, bounds)).toBe(30_000);
    expect(clampTtl(Number.POSITIVE_INFINITY, bounds)).toBe(60_000);
  });
});

describe("ListFreshness", () => {
  it("makes a stateless server's listing stale once its clamped ttlMs passed, not before", () => {
    const { staleAfter } = listedOnce({ minMs: 100, maxMs: 10_000 }, { ttlMs: 10, scope: "public" }, true);
    expect(staleAfter(99, 1)).toEqual([false, true]);
  });

  it("never makes a handshake-era server's listing stale: list_changed is its way", () => {
    const { freshness, staleAfter } = listedOnce(
      { minMs: 0, maxMs: 10 },
      { ttlMs: 0, scope: "private" },
      false,
    );
    expect(staleAfter(1_000_000)).toEqual([false]);
    expect(freshness.hints).toEqual({ ttlMs: 0, scope: "private" });
  });

  it("starts again from each listing, and forgets everything when cleared", () => {
    const hints = { ttlMs: 50, scope: "public" as const };
    const { freshness, staleAfter } = listedOnce({ minMs: 0, maxMs: 10_000 }, hints, true);
    expect(staleAfter(60)).toEqual([true]);
    freshness.listed(hints, true);
    expect(staleAfter(0)).toEqual([false]);
    freshness.clear();
    expect(staleAfter(60)).toEqual([false]);
    expect(freshness.hints).toBeUndefined();
  });
});
