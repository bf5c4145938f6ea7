import { isRecord } from "@agent/base";

type RequestId = string | number;
type Send = (init: RequestInit) => Promise<Response>;

const CANCELLED = "notifications/cancelled";

/** What the server is told when a request was cancelled before its response began: nothing (a local 202). */
function acceptedLocally(): Response {
  return new Response(null, { status: 202 });
}

/**
 * The response streams of a stateless (2026-07-28) HTTP connection's requests, by JSON-RPC id. On
 * that revision closing a request's response stream *is* its cancellation, and no
 * `notifications/cancelled` is sent: the SDK's client sends one when a request is aborted, so
 * {@link cancel} turns that notification into closing the stream (aborting that request's fetch
 * alone) and answers it locally. The stream ends quietly for the SDK, as if the server had closed it,
 * so a cancellation is neither an error of the connection nor a reason to resume the stream.
 */
export class RequestStreams {
  readonly #open = new Map<RequestId, AbortController>();
  /** What stops forwarding the connection's abort to a request, until it is forgotten. */
  readonly #releases = new Map<AbortController, () => void>();
  readonly #isStateless: () => boolean;

  /** `isStateless` says whether the connection negotiated the stateless protocol (asked when a GET goes out). */
  constructor(isStateless: () => boolean) {
    this.#isStateless = isStateless;
  }

  /** How many requests' streams are open (for tests: each ends with its response). */
  get openCount(): number {
    return this.#open.size;
  }

  /**
   * A local answer to a GET once this connection speaks the stateless protocol: no GET stream exists
   * on 2026-07-28, so what the SDK tries after a stream ended is a resumption, refused as a server
   * without a GET endpoint refuses it (405).
   */
  refusedResumption(): Response | undefined {
    return this.#isStateless() ? new Response(null, { status: 405 }) : undefined;
  }

  /**
   * When `message` is the cancellation of a request open here, closes that request's stream and
   * returns the local answer to send back instead of the notification. A cancellation of a request
   * not open here (a handshake-era request, one already answered) is left to be sent as usual.
   */
  cancel(message: unknown): Response | undefined {
    if (!isRecord(message) || message.method !== CANCELLED || !isRecord(message.params)) return undefined;
    const id = message.params.requestId;
    if (typeof id !== "string" && typeof id !== "number") return undefined;
    const controller = this.#open.get(id);
    if (!controller) return undefined;
    this.#forget(id, controller);
    controller.abort(new Error("request cancelled by the client"));
    return acceptedLocally();
  }

  /** Sends the stateless request `id` with a signal of its own, and tracks its stream until it ends. */
  async open(id: RequestId, init: RequestInit, send: Send): Promise<Response> {
    const controller = new AbortController();
    // The connection's own abort (close) still ends this request: forwarded by a listener (cheaper
    // per request than AbortSignal.any), removed when the request is forgotten.
    const connection = init.signal;
    if (connection) {
      const forward = (): void => controller.abort(connection.reason);
      connection.addEventListener("abort", forward, { once: true });
      this.#releases.set(controller, () => connection.removeEventListener("abort", forward));
    }
    this.#open.set(id, controller);
    let response: Response;
    try {
      response = await send({ ...init, signal: controller.signal });
    } catch (error) {
      this.#forget(id, controller);
      // Cancelled before the response began: for the SDK, the request was accepted and ends there.
      if (controller.signal.aborted) return acceptedLocally();
      throw error;
    }
    const body = response.body;
    const isEventStream = (response.headers.get("content-type") ?? "")
      .toLowerCase()
      .includes("text/event-stream");
    if (!body || !isEventStream) {
      // A JSON response is complete once it begins; only an event stream stays open.
      this.#forget(id, controller);
      return response;
    }
    const wrapped = new Response(this.#endsQuietly(id, controller, body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperty(wrapped, "url", { value: response.url });
    return wrapped;
  }

  #forget(id: RequestId, controller: AbortController): void {
    if (this.#open.get(id) === controller) this.#open.delete(id);
    this.#releases.get(controller)?.();
    this.#releases.delete(controller);
  }

  /** `body`, forgotten when it ends, and closed (not errored) when this connection cancelled it. */
  #endsQuietly(
    id: RequestId,
    controller: AbortController,
    body: ReadableStream<Uint8Array>,
  ): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    return new ReadableStream<Uint8Array>({
      pull: async (out) => {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          this.#forget(id, controller);
          if (controller.signal.aborted) out.close();
          else out.error(error);
          return;
        }
        if (chunk.done) {
          this.#forget(id, controller);
          out.close();
          return;
        }
        out.enqueue(chunk.value);
      },
      cancel: (reason) => {
        this.#forget(id, controller);
        return reader.cancel(reason);
      },
    });
  }
}

/** The id of a JSON-RPC request (not a notification, not a response). */
export function requestIdOf(message: unknown): RequestId | undefined {
  if (!isRecord(message) || typeof message.method !== "string") return undefined;
  const { id } = message;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}
