import { holdsProcess } from "@agent/base";

/**
 * A `fetch` wrapper that bounds silence inside a response body. The SDKs' `timeout` covers each
 * attempt only until the response headers arrive: a server that then stalls, in a stream or in a
 * plain JSON body, would be waited on forever. The guard errors the body (and closes the
 * connection) once no bytes arrived for `idleMs`; the adapters report that as `model_timeout`.
 */

const MARKER = Symbol.for("@agent/models.SilentBodyError");

/** The error a guarded body fails with; recognized through the SDKs' wrapping by {@link isSilentBody}. */
class SilentBodyError extends Error {
  override readonly name = "SilentBodyError";
  readonly [MARKER] = true;

  constructor(idleMs: number) {
    super(`nothing arrived for ${idleMs} ms inside the answer`);
  }
}

/** Whether `error`, or an error it wraps (`cause`), is a guarded body's silence. */
export function isSilentBody(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth += 1) {
    if ((current as Record<symbol, unknown>)[MARKER] === true) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Wraps `base` (the global `fetch` when omitted, looked up at each call) so response bodies may not go silent for `idleMs`. */
export function guardSilentBodies(
  base: typeof globalThis.fetch | undefined,
  idleMs: number,
): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await (base ?? globalThis.fetch)(input, init);
    if (response.body === null) return response;
    const guarded = new Response(guardBody(response.body, idleMs), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // The SDKs put the URL in their errors and logs; a constructed Response has none of its own.
    Object.defineProperty(guarded, "url", { value: response.url });
    return guarded;
  };
}

function guardBody(body: ReadableStream<Uint8Array>, idleMs: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // One lazy timer instead of a reset per chunk (a stream has thousands): a chunk only records the
  // time, and the timer, when it fires, waits again for whatever is left of the limit.
  let lastActivity = Date.now();
  const watch = (controller: ReadableStreamDefaultController<Uint8Array>, delay: number): void => {
    timer = setTimeout(() => {
      const idle = Date.now() - lastActivity;
      if (idle < idleMs) {
        watch(controller, idleMs - idle);
        return;
      }
      const error = new SilentBodyError(idleMs);
      controller.error(error);
      // Cancelling the source closes the connection, so the server sees the client go away.
      reader.cancel(error).catch(() => {});
    }, delay);
    // An open request keeps the process alive through its socket; the timer need not.
    holdsProcess(timer, false);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      watch(controller, idleMs);
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        lastActivity = Date.now();
        if (done) {
          clearTimeout(timer);
          controller.close();
          return;
        }
        controller.enqueue(value);
      } catch (error) {
        clearTimeout(timer);
        // Already errored by the timer: the read failed because of the cancel above.
        try {
          controller.error(error);
        } catch {
          // The stream is already errored.
        }
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
}
