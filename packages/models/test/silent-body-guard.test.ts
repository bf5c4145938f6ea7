import { describe, expect, it } from "vitest";
import { guardSilentBodies, isSilentBody } from "../src/silent-body-guard.js";

/** A fetch whose response body is fed by hand; `cancelled` resolves with the reason the guard cancelled it. */
function manualFetch() {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  let onCancel!: (reason: unknown) => void;
  const cancelled = new Promise<unknown>((resolve) => {
    onCancel = resolve;
  });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      feed = controller;
    },
    cancel(reason) {
      onCancel(reason);
    },
  });
  const fetch: typeof globalThis.fetch = async () =>
    new Response(body, { status: 201, statusText: "Created", headers: { "x-test": "1" } });
  return { fetch, feed: () => feed, cancelled };
}

describe("guardSilentBodies", () => {
  it("passes status, headers and every byte through while the body keeps moving", async () => {
    const source = manualFetch();
    const response = await guardSilentBodies(source.fetch, 10_000)("http://127.0.0.1/");
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Created");
    expect(response.headers.get("x-test")).toBe("1");
    source.feed().enqueue(new TextEncoder().encode("hello "));
    source.feed().enqueue(new TextEncoder().encode("world"));
    source.feed().close();
    expect(await response.text()).toBe("hello world");
  });

  it("fails a body that goes silent, with an error the adapters recognize, and cancels the source", async () => {
    const source = manualFetch();
    const response = await guardSilentBodies(source.fetch, 20)("http://127.0.0.1/");
    source.feed().enqueue(new TextEncoder().encode("{"));
    const failure = await response.text().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isSilentBody(failure)).toBe(true);
    expect(isSilentBody(new Error("wrapped", { cause: failure }))).toBe(true);
    expect(isSilentBody(new Error("other"))).toBe(false);
    expect(isSilentBody(await source.cancelled)).toBe(true);
  });

  it("leaves a response without a body as it is", async () => {
    const empty = new Response(null, { status: 204 });
    expect(await guardSilentBodies(async () => empty, 20)("http://127.0.0.1/")).toBe(empty);
  });
});
