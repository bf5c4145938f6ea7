import { isRecord } from "./records.js";

/**
 * What a listing said about its own freshness: the 2026-07-28 caching hints (`ttlMs`, `cacheScope`)
 * of its pages, combined. A server that sends none (every handshake-era server) is read as the spec
 * says: `ttlMs` absent means 0, immediately stale.
 */
export interface CacheHints {
  /** How long the listing may be taken as current, in milliseconds (whole, >= 0). */
  ttlMs: number;
  /**
   * `public`: the same for every caller; `private`: for this authorization context only. A connection's
   * catalog is only ever used by that connection (one server, one set of credentials) and is listed
   * anew whenever it reconnects, so both scopes are honoured by construction; the scope is kept for
   * listings and for callers that would share a catalog.
   */
  scope: "public" | "private";
}

/** The hints of one listing page; a malformed `ttlMs` counts as 0, a missing or unknown `cacheScope` as `private`. */
export function readCacheHints(page: unknown): CacheHints {
  const record = isRecord(page) ? page : {};
  const { ttlMs, cacheScope } = record;
  return {
    ttlMs: typeof ttlMs === "number" && Number.isFinite(ttlMs) && ttlMs > 0 ? Math.floor(ttlMs) : 0,
    scope: cacheScope === "public" ? "public" : "private",
  };
}

/** Two pages' hints as one listing's: the shorter lifetime wins, and one private page makes the listing private. */
export function combineCacheHints(first: CacheHints, second: CacheHints): CacheHints {
  return {
    ttlMs: Math.min(first.ttlMs, second.ttlMs),
    scope: first.scope === "private" || second.scope === "private" ? "private" : "public",
  };
}

/** {@link combineCacheHints} where either side may be missing (a listing that was not made). */
export function combineOptionalHints(
  first: CacheHints | undefined,
  second: CacheHints | undefined,
): CacheHints | undefined {
  return first && second ? combineCacheHints(first, second) : (first ?? second);
}

/**
 * Bounds on how long a stateless server's catalog is trusted, whatever its `ttlMs` says. The floor
 * keeps `ttlMs: 0` (the SDKs' default: "re-fetch every time") from costing a `tools/list` before every
 * call: at most one re-listing per floor. The ceiling keeps a huge or infinite `ttlMs` from freezing a
 * catalog for the lifetime of a long-running connection.
 */
export interface FreshnessBounds {
  minMs: number;
  maxMs: number;
}

/** The default floor: one re-listing per second at most, per server. */
export const DEFAULT_MIN_LIST_TTL_MS = 1_000;

/** The default ceiling: a catalog is listed again at least once an hour. */
export const DEFAULT_MAX_LIST_TTL_MS = 60 * 60 * 1_000;

/** `ttlMs` clamped to `bounds`. */
export function clampTtl(ttlMs: number, bounds: FreshnessBounds): number {
  return Math.min(Math.max(ttlMs, bounds.minMs), bounds.maxMs);
}

/**
 * When a connection's catalog goes stale. Only a stateless (2026-07-28) server is held to its hints:
 * it has no `list_changed` and no session, so expiry is its only way to say its tools changed. A
 * handshake-era server's catalog stays current until its `list_changed` or a reconnect.
 */
export class ListFreshness {
  readonly #bounds: FreshnessBounds;
  readonly #now: () => number;
  #staleAt: number | undefined;
  #hints: CacheHints | undefined;

  constructor(bounds: FreshnessBounds, now: () => number = () => performance.now()) {
    this.#bounds = bounds;
    this.#now = now;
  }

  /** The hints of the last listing, once there was one. */
  get hints(): CacheHints | undefined {
    return this.#hints;
  }

  /** A listing arrived (`stateless` says whether its server is held to its hints). */
  listed(hints: CacheHints, stateless: boolean): void {
    this.#hints = hints;
    this.#staleAt = stateless ? this.#now() + clampTtl(hints.ttlMs, this.#bounds) : undefined;
  }

  /** Whether the catalog must be listed again before it is used. */
  isStale(): boolean {
    return this.#staleAt !== undefined && this.#now() >= this.#staleAt;
  }

  /** Forgets the last listing (the connection closed or is reconnecting). */
  clear(): void {
    this.#staleAt = undefined;
    this.#hints = undefined;
  }
}
