import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/** What {@link createBoundedFetch} reports to the connection that owns it. */
export interface BoundedFetchHooks {
  /** A response body (or one server-sent event) grew past the limit; the body was aborted. */
  onOversized: (message: string) => void;
  /** The network failed (refused, reset, cut mid-body): the server is gone or unreachable. */
  onNetworkError: (error: unknown) => void;
  /** The server no longer knows our session (HTTP 404 to a request that carried one). */
  onSessionExpired: () => void;
}

// Statuses whose responses cannot carry a body; they are passed through untouched.
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Wraps `fetch` so that no response body can exceed `maxResponseBytes`: a JSON body is counted
 * whole, an event stream per event (a long-lived stream may carry any number of small events).
 */
export function createBoundedFetch(
  base: FetchLike,
  maxResponseBytes: number,
  hooks: BoundedFetchHooks,
): FetchLike {
  return async (url, init) => {
    let response: Response;
    try {
      response = await base(url, init);
    } catch (error) {
      // Our own abort (close) is not a network failure.
      if (!init?.signal?.aborted) hooks.onNetworkError(error);
      throw error;
    }
    if (response.status === 404 && new Headers(init?.headers).has("mcp-session-id")) hooks.onSessionExpired();
    const body = response.body;
    if (!body || NULL_BODY_STATUSES.has(response.status) || response.status < 200) return response;

    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (declared > maxResponseBytes) {
      await body.cancel().catch(() => {});
      const message = `the server sent a response of ${declared} bytes, over the ${maxResponseBytes}-byte limit (maxResponseBytes)`;
      hooks.onOversized(message);
      throw new Error(message);
    }
    const isEventStream = (response.headers.get("content-type") ?? "")
      .toLowerCase()
      .includes("text/event-stream");
    const bounded = boundBody(body, maxResponseBytes, isEventStream, init?.signal ?? undefined, hooks);
    const wrapped = new Response(bounded, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // The SDK resolves redirect targets against response.url; keep it.
    Object.defineProperty(wrapped, "url", { value: response.url });
    return wrapped;
  };
}

function boundBody(
  body: ReadableStream<Uint8Array>,
  limit: number,
  perEvent: boolean,
  signal: AbortSignal | undefined,
  hooks: BoundedFetchHooks,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let counted = 0;
  let previousWasLineFeed = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (!signal?.aborted) hooks.onNetworkError(error);
        controller.error(error);
        return;
      }
      if (chunk.done) {
        controller.close();
        return;
      }
      if (perEvent) {
        for (const byte of chunk.value) {
          counted += 1;
          if (byte === LINE_FEED) {
            // A blank line ends an event (CR before LF is ignored).
            if (previousWasLineFeed) counted = 0;
            previousWasLineFeed = true;
          } else if (byte !== CARRIAGE_RETURN) {
            previousWasLineFeed = false;
          }
          if (counted > limit) break;
        }
      } else {
        counted += chunk.value.length;
      }
      if (counted > limit) {
        const message = perEvent
          ? `the server sent an event of more than ${limit} bytes (maxResponseBytes)`
          : `the server sent a response of more than ${limit} bytes (maxResponseBytes)`;
        hooks.onOversized(message);
        const error = new Error(message);
        void reader.cancel(error).catch(() => {});
        controller.error(error);
        return;
      }
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
