/**
 * Cancellation on 2026-07-28 HTTP is closing the request's response stream (no notification): the
 * streams of stateless requests are tracked by id, a cancellation closes that stream alone and is
 * answered locally, and the stream ends quietly for the reader above.
 */
import { describe, expect, it } from "vitest";
import { RequestStreams } from "../src/era/request-streams.js";

const cancellation = (requestId: string | number) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId, reason: "the caller gave up" },
});

/** A server's event stream that stays open until the request's signal aborts it, as a socket would. */
function openEventStream(init: RequestInit): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(": keep-alive\n\n"));
      init.signal?.addEventListener("abort", () => controller.error(init.signal?.reason));
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

async function readAll(response: Response): Promise<string> {
  return await new Response(response.body).text();
}

describe("RequestStreams", () => {
  it("closes a cancelled request's stream alone, answers the cancellation locally, and ends the stream quietly", async () => {
    const streams = new RequestStreams(() => false);
    const signals: AbortSignal[] = [];
    const send = async (init: RequestInit) => {
      if (init.signal) signals.push(init.signal);
      return openEventStream(init);
    };
    const first = await streams.open(1, { method: "POST" }, send);
    const second = await streams.open(2, { method: "POST" }, send);
    expect(streams.openCount).toBe(2);

    const answer = streams.cancel(cancellation(1));
    expect(answer?.status).toBe(202);
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[1]?.aborted).toBe(false);
    // Read to its end without an error: the reader sees a stream the server closed.
    await expect(readAll(first)).resolves.toContain("keep-alive");
    expect(streams.openCount).toBe(1);

    streams.cancel(cancellation(2));
    await expect(readAll(second)).resolves.toContain("keep-alive");
    expect(streams.openCount).toBe(0);
  });

  it("cancels a request whose response has not begun: its fetch is aborted and it ends as accepted", async () => {
    const streams = new RequestStreams(() => false);
    let signal: AbortSignal | undefined;
    const pending = streams.open("call-1", { method: "POST" }, (init) => {
      signal = init.signal ?? undefined;
      return new Promise<Response>((_resolve, reject) => {
        init.signal?.addEventListener("abort", () => reject(init.signal?.reason));
      });
    });
    expect(streams.cancel(cancellation("call-1"))?.status).toBe(202);
    expect(signal?.aborted).toBe(true);
    await expect(pending).resolves.toMatchObject({ status: 202 });
    expect(streams.openCount).toBe(0);
  });

  it("leaves other cancellations to be sent: an unknown id, an answered request, a malformed notice", async () => {
    const streams = new RequestStreams(() => false);
    const response = await streams.open(7, { method: "POST" }, async () =>
      Response.json({ jsonrpc: "2.0", id: 7, result: {} }),
    );
    expect(await response.json()).toMatchObject({ id: 7 });
    expect(streams.openCount).toBe(0);
    expect(streams.cancel(cancellation(7))).toBeUndefined();
    expect(streams.cancel(cancellation(99))).toBeUndefined();
    expect(
      streams.cancel({ method: "notifications/cancelled", params: { requestId: { nested: 1 } } }),
    ).toBeUndefined();
    expect(streams.cancel({ method: "tools/call", params: { requestId: 7 } })).toBeUndefined();
  });

  it("forgets a stream that ended with its response, so a late cancellation is not swallowed", async () => {
    const streams = new RequestStreams(() => false);
    const response = await streams.open(
      3,
      { method: "POST" },
      async () =>
        new Response('event: message\ndata: {"jsonrpc":"2.0","id":3,"result":{}}\n\n', {
          headers: { "content-type": "text/event-stream" },
        }),
    );
    await readAll(response);
    expect(streams.openCount).toBe(0);
    expect(streams.cancel(cancellation(3))).toBeUndefined();
  });

  it("passes a network failure through as an error of the stream", async () => {
    const streams = new RequestStreams(() => false);
    await expect(
      streams.open(4, { method: "POST" }, async () => {
        throw new TypeError("fetch failed");
      }),
    ).rejects.toThrow("fetch failed");
    const cut = await streams.open(5, { method: "POST" }, async () => {
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => controller.error(new Error("socket hang up")),
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    await expect(readAll(cut)).rejects.toThrow("socket hang up");
    expect(streams.openCount).toBe(0);
  });

  it("keeps the caller's abort (the connection closing) in force on each request", async () => {
    const streams = new RequestStreams(() => false);
    const connection = new AbortController();
    let signal: AbortSignal | undefined;
    await streams.open(6, { method: "POST", signal: connection.signal }, async (init) => {
      signal = init.signal ?? undefined;
      return openEventStream(init);
    });
    connection.abort();
    expect(signal?.aborted).toBe(true);
  });

  it("stops listening to the connection's signal once a request ends", async () => {
    const streams = new RequestStreams(() => false);
    const connection = new AbortController();
    let listeners = 0;
    const signal = connection.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners += 1;
      add(...args);
    }) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners -= 1;
      remove(...args);
    }) as typeof remove;
    for (let id = 0; id < 5; id += 1) {
      await streams.open(id, { method: "POST", signal }, async () => Response.json({ id, result: {} }));
    }
    const streamed = await streams.open(9, { method: "POST", signal }, async (init) => openEventStream(init));
    streams.cancel(cancellation(9));
    await readAll(streamed);
    expect(listeners).toBe(0);
  });

  it("refuses a GET (a resumption) locally only while the connection speaks the stateless protocol", () => {
    let stateless = false;
    const streams = new RequestStreams(() => stateless);
    expect(streams.refusedResumption()).toBeUndefined();
    stateless = true;
    expect(streams.refusedResumption()?.status).toBe(405);
  });
});
