/** The table of requests in flight: each ends once, by its answer, its caller's abort, its timeout or the connection's end. */
import { describe, expect, it } from "vitest";
import { type PendingRequest, PendingRequests } from "../src/sdk/pending-requests.js";
import { MCP_ERROR_CODES, type McpRequestContext, type McpResponse } from "../src/transport.js";

function startOne(method: string, context: Partial<McpRequestContext> = {}) {
  const table = new PendingRequests();
  const controller = new AbortController();
  const outcomes: McpResponse[] = [];
  let request: PendingRequest | undefined;
  const settled = new Promise<McpResponse>((resolve) => {
    request = table.start(method, { signal: controller.signal, ...context }, (response) => {
      outcomes.push(response);
      resolve(response);
    });
  });
  return { table, controller, outcomes, request: request as PendingRequest, settled };
}

const OK: McpResponse = { ok: true, result: {} };

describe("PendingRequests", () => {
  it("ends a request once: by its answer, and nothing after that changes it", () => {
    const { request, controller, outcomes } = startOne("tools/call");
    request.markSent();
    expect(request.pending).toBe(true);
    request.settle(OK);
    request.settle({ ok: false, error: { code: -1, message: "late" } });
    controller.abort();
    expect(outcomes).toEqual([OK]);
    expect(request.pending).toBe(false);
    // An abort after the answer must not cancel a finished request on the server.
    expect(request.canceller.aborted).toBe(false);
  });

  it("ends a sent request cancelled when its caller aborts, and tells the server", () => {
    const { request, controller, outcomes } = startOne("tools/call");
    request.markSent();
    controller.abort();
    expect(outcomes).toMatchObject([{ ok: false, error: { code: MCP_ERROR_CODES.cancelled } }]);
    expect(request.canceller.aborted).toBe(true);
  });

  it("tells the server nothing about a request that never went out", () => {
    const { request, controller, outcomes } = startOne("tools/call");
    controller.abort();
    expect(outcomes).toMatchObject([{ ok: false, error: { code: MCP_ERROR_CODES.cancelled } }]);
    expect(request.canceller.aborted).toBe(false);
  });

  it("ends a request that outlives timeoutMs with the timeout code, and cancels it on the server", async () => {
    const { request, settled } = startOne("tools/call", { timeoutMs: 0 });
    request.markSent();
    expect(await settled).toEqual({
      ok: false,
      error: { code: MCP_ERROR_CODES.timeout, message: "request timed out after 0 ms" },
    });
    expect(request.canceller.aborted).toBe(true);
  });

  it("never cancels initialize on the server (the MCP spec forbids it), though it times out", async () => {
    const { request, settled } = startOne("initialize", { timeoutMs: 0 });
    request.markSent();
    expect(await settled).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.timeout } });
    expect(request.canceller.aborted).toBe(false);
  });

  it("ends every pending request with one response when the connection closes", () => {
    const table = new PendingRequests();
    const outcomes: McpResponse[] = [];
    const closed: McpResponse = {
      ok: false,
      error: { code: MCP_ERROR_CODES.connectionClosed, message: "gone" },
    };
    const done = table.start("a", { signal: new AbortController().signal }, (response) =>
      outcomes.push(response),
    );
    done.settle(OK);
    for (const method of ["b", "c"]) {
      table.start(method, { signal: new AbortController().signal }, (response) => outcomes.push(response));
    }
    table.settleAll(closed);
    expect(outcomes).toEqual([OK, closed, closed]);
  });
});
