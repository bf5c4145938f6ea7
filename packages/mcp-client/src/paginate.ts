import { MCP_ERROR_CODES, type McpRequestContext, type McpTransport } from "@agent/mcp-transport";
import { McpClientError, type McpClientErrorCode } from "./errors.js";
import { type CacheHints, combineCacheHints, readCacheHints } from "./list-freshness.js";
import { describeValue, isRecord } from "./records.js";

/** What one paginated listing (`tools/list`, `resources/list`, ...) reads and how it fails. */
export interface PaginatedListing {
  server: string;
  /** The method, e.g. `resources/list`. */
  method: string;
  /** The array each page carries, e.g. `resources`. */
  key: string;
  /** More pages than this is treated as a broken server. */
  maxPages: number;
  /** More entries than this, in all pages together, is treated as a broken server. */
  maxItems: number;
  /**
   * More than this many bytes of results, in all pages together, fails the listing with
   * `tooLargeCode`: a server cannot grow discovery's memory without bound. Sizes are measured as the
   * JSON text of each page would be, counting a character as one byte.
   */
  maxBytes: number;
  /** The code when the listing is over `maxBytes`. */
  tooLargeCode: McpClientErrorCode;
  /** The code when the server answers with an error. */
  failedCode: McpClientErrorCode;
  /** The code when the answer is malformed, loops or never ends. */
  invalidCode: McpClientErrorCode;
  /** Read "method not found" on the first page as an empty listing (an optional method). */
  optional?: boolean;
}

/**
 * Reads every page of a listing, following `nextCursor` to the end. A repeated cursor, too many
 * pages or entries, a page without its array or a non-string cursor fail the whole listing; the
 * entries themselves are returned unvalidated, for the caller to check one by one, with the pages'
 * caching hints combined (`ttlMs`, `cacheScope`; none for an optional method the server lacks).
 */
export async function listAllPages(
  transport: McpTransport,
  context: McpRequestContext,
  listing: PaginatedListing,
): Promise<{ entries: unknown[]; pages: number; cache: CacheHints | undefined }> {
  const { server, method, key, maxPages, maxItems, maxBytes } = listing;
  const invalid = (message: string): McpClientError =>
    new McpClientError(listing.invalidCode, message, { server });
  const entries: unknown[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  let bytes = 0;
  let cache: CacheHints | undefined;
  do {
    if (pages >= maxPages) throw invalid(`${method} did not end within ${maxPages} pages.`);
    const response = await transport.request(method, cursor === undefined ? {} : { cursor }, context);
    pages += 1;
    if (
      !response.ok &&
      listing.optional &&
      pages === 1 &&
      response.error.code === MCP_ERROR_CODES.methodNotFound
    ) {
      // No listing at all: it says nothing of how long anything stays current.
      return { entries: [], pages, cache: undefined };
    }
    if (!response.ok) {
      throw new McpClientError(
        listing.failedCode,
        `${method} failed (${response.error.code}): ${response.error.message}`,
        { server },
      );
    }
    const page = response.result;
    // Counted before the page is kept: what the budget refuses is dropped with the response.
    bytes += jsonSize(page, maxBytes - bytes + 1);
    if (bytes > maxBytes) {
      throw new McpClientError(
        listing.tooLargeCode,
        `${method} sent more than ${maxBytes} bytes in ${pages} page(s) (the listing byte budget).`,
        { server },
      );
    }
    if (!isRecord(page) || !Array.isArray(page[key])) {
      throw invalid(`${method} returned ${describeValue(page)} without a ${key} array.`);
    }
    entries.push(...(page[key] as unknown[]));
    const hints = readCacheHints(page);
    cache = cache ? combineCacheHints(cache, hints) : hints;
    if (entries.length > maxItems) throw invalid(`${method} listed more than ${maxItems} ${key}.`);
    const next = page.nextCursor;
    if (next === undefined || next === null) {
      cursor = undefined;
    } else if (typeof next !== "string") {
      throw invalid(`${method} returned a non-string nextCursor (${describeValue(next)}).`);
    } else if (seenCursors.has(next)) {
      throw invalid(`${method} repeated the cursor ${describeValue(next)}.`);
    } else {
      seenCursors.add(next);
      cursor = next;
    }
  } while (cursor !== undefined);
  return { entries, pages, cache: cache ?? readCacheHints(undefined) };
}

/**
 * The length of `value`'s JSON text, counting a character as one byte, or a number past `limit`
 * once it is reached. Iterative: a deeply nested page cannot exhaust the stack. It walks every value
 * of every page, so it counts scalars where it finds them and keeps only containers to visit: no
 * `[key, value]` pair or pending entry per property, which made it a per-tool cost of discovery.
 */
function jsonSize(value: unknown, limit: number): number {
  if (!isContainer(value)) return scalarSize(value);
  let size = 0;
  const pending: object[] = [value];
  while (pending.length > 0 && size <= limit) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      size += item.length + 1;
      for (const element of item) {
        if (isContainer(element)) pending.push(element);
        else size += scalarSize(element);
      }
    } else if (item !== undefined) {
      size += 2;
      const record = item as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const element = record[key];
        size += key.length + 4;
        if (isContainer(element)) pending.push(element);
        else size += scalarSize(element);
      }
    }
  }
  return size;
}

function isContainer(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function scalarSize(value: unknown): number {
  return typeof value === "string" ? value.length + 2 : String(value).length;
}
