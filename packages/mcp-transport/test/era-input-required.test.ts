/**
 * Multi-round-trip requests (SEP-2322) behind the transport port: an `input_required` result is
 * answered through the handlers the client registered with `onRequest` and the request sent again
 * with the answers and the server's `requestState` exactly as it came; the state is bounded and never
 * shows in an error.
 */
import { describe, expect, it } from "vitest";
import { INPUT_REQUIRED_LIMITS } from "../src/era/input-required.js";
import { negotiateEra } from "../src/era/negotiate-era.js";
import {
  MCP_ERROR_CODES,
  type McpRequestContext,
  type McpRequestHandler,
  type McpResponse,
} from "../src/transport.js";
import {
  connectScripted,
  INITIALIZE,
  type Script,
  scriptedEraServer,
  withoutMeta,
} from "./scripted-era-server.js";

const never = new AbortController().signal;
const COMPLETE: McpResponse = { ok: true, result: { content: [] } };

function inputRequired(extra: Record<string, unknown> = {}): McpResponse {
  return {
    ok: true,
    result: {
      resultType: "input_required",
      inputRequests: {
        confirm: {
          method: "elicitation/create",
          params: { message: "Confirm?", requestedSchema: { type: "object", properties: {} } },
        },
      },
      ...extra,
    },
  };
}

/** A stateless server answering each method from its script, each answer once. */
function connect(script: Script, handlers: Record<string, McpRequestHandler> = {}) {
  return connectScripted(script, { answers: "each-once", unscripted: COMPLETE }, handlers);
}

const accept: McpRequestHandler = async () => ({ ok: true, result: { action: "accept", content: {} } });

describe("multi-round-trip requests", () => {
  it("answers the input requests and retries with the answers and the requestState byte for byte", async () => {
    // JSON-looking, with spacing, escapes and non-ASCII: parsing and re-serializing would change it.
    const state = '{ "nonce":"\\u00e9t\\u00e9" ,  "n": 1.0e0 }\t«opaque»';
    const asked: unknown[] = [];
    const { era, sent } = await connect(
      { "tools/call": [inputRequired({ requestState: state }), { ok: true, result: { content: [] } }] },
      {
        "elicitation/create": async (params) => {
          asked.push(params);
          return { ok: true, result: { action: "accept", content: { confirmed: true } } };
        },
      },
    );
    const outcome = await era.request("tools/call", { name: "deploy", arguments: { to: "prod" } }, never);
    expect(outcome).toEqual({ ok: true, result: { content: [] } });
    expect(asked).toEqual([{ message: "Confirm?", requestedSchema: { type: "object", properties: {} } }]);
    expect(sent.map((round) => withoutMeta(round.params))).toEqual([
      { name: "deploy", arguments: { to: "prod" } },
      {
        name: "deploy",
        arguments: { to: "prod" },
        inputResponses: { confirm: { action: "accept", content: { confirmed: true } } },
        requestState: state,
      },
    ]);
    expect(sent[1]?.params.requestState).toBe(state);
    // Every round carries the envelope, as any stateless request does.
    expect(sent[1]?.params._meta).toMatchObject({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" });
  });

  it("sends no requestState when the server sent none", async () => {
    const { era, sent } = await connect(
      { "tools/call": [inputRequired()] },
      { "elicitation/create": accept },
    );
    await era.request("tools/call", { name: "t", arguments: {} }, never);
    expect(sent).toHaveLength(2);
    expect(Object.hasOwn(sent[1]?.params ?? {}, "requestState")).toBe(false);
  });

  it("keeps one request's answers and state out of every other request", async () => {
    const { era, sent } = await connect(
      { "tools/call": [inputRequired({ requestState: "s1" })] },
      { "elicitation/create": accept },
    );
    await era.request("tools/call", { name: "first", arguments: {} }, never);
    await era.request("tools/call", { name: "other", arguments: {} }, never);
    expect(withoutMeta(sent[2]?.params ?? {})).toEqual({ name: "other", arguments: {} });
  });

  it("takes a result without resultType as complete, and retries nothing", async () => {
    const { era, sent } = await connect({ "tools/call": [{ ok: true, result: { content: [] } }] });
    await era.request("tools/call", { name: "t", arguments: {} }, never);
    expect(sent).toHaveLength(1);
  });

  it("refuses an oversized requestState without asking anyone or retrying, and never echoes it", async () => {
    const state = `SECRET-${"x".repeat(INPUT_REQUIRED_LIMITS.maxRequestStateBytes)}`;
    let asked = 0;
    const { era, sent } = await connect(
      { "tools/call": [inputRequired({ requestState: state })] },
      {
        "elicitation/create": async () => {
          asked += 1;
          return { ok: true, result: { action: "accept", content: {} } };
        },
      },
    );
    const outcome = await era.request("tools/call", { name: "t", arguments: {} }, never);
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: MCP_ERROR_CODES.internalError,
        message: expect.stringMatching(/requestState is larger than/),
      },
    });
    expect(JSON.stringify(outcome)).not.toContain("SECRET");
    expect(asked).toBe(0);
    expect(sent).toHaveLength(1);
  });

  it("fails, without a retry, when the client offers no handler for what the server asks", async () => {
    const { era, sent } = await connect({ "tools/call": [inputRequired()] });
    const outcome = await era.request("tools/call", { name: "t", arguments: {} }, never);
    expect(outcome).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.methodNotFound } });
    expect(sent).toHaveLength(1);
  });

  it("passes a handler's refusal on as the request's outcome", async () => {
    const { era, sent } = await connect(
      { "tools/call": [inputRequired()] },
      {
        "elicitation/create": async () => ({
          ok: false,
          error: { code: MCP_ERROR_CODES.invalidParams, message: "Invalid elicitation request" },
        }),
      },
    );
    const outcome = await era.request("tools/call", { name: "t", arguments: {} }, never);
    expect(outcome).toEqual({
      ok: false,
      error: { code: MCP_ERROR_CODES.invalidParams, message: "Invalid elicitation request" },
    });
    expect(sent).toHaveLength(1);
  });

  it("gives up on a server that keeps asking, after the round limit", async () => {
    const rounds = Array.from({ length: INPUT_REQUIRED_LIMITS.maxRounds + 2 }, () => inputRequired());
    const { era, sent } = await connect({ "tools/call": rounds }, { "elicitation/create": accept });
    const outcome = await era.request("tools/call", { name: "t", arguments: {} }, never);
    expect(outcome).toMatchObject({ ok: false, error: { message: expect.stringMatching(/rounds/) } });
    expect(sent).toHaveLength(INPUT_REQUIRED_LIMITS.maxRounds);
  });

  it("refuses malformed input requests", async () => {
    const { era } = await connect(
      {
        "tools/call": [
          { ok: true, result: { resultType: "input_required", inputRequests: { a: { params: {} } } } },
        ],
      },
      { "elicitation/create": accept },
    );
    const outcome = await era.request("tools/call", { name: "t", arguments: {} }, never);
    expect(outcome).toMatchObject({ ok: false, error: { message: expect.stringMatching(/has no method/) } });
  });

  it("cancels the handler and the request when the caller's signal aborts while input is awaited", async () => {
    const controller = new AbortController();
    let handlerSignal: AbortSignal | undefined;
    const { era, sent } = await connect(
      { "tools/call": [inputRequired()] },
      {
        "elicitation/create": (_params, { signal }) => {
          handlerSignal = signal;
          controller.abort();
          return new Promise(() => {});
        },
      },
    );
    const outcome = await era.request("tools/call", { name: "t", arguments: {} }, controller.signal);
    expect(outcome).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.cancelled } });
    expect(handlerSignal?.aborted).toBe(true);
    expect(sent).toHaveLength(1);
  });

  it("hands each round the caller's signal and what is left of its time limit", async () => {
    const controller = new AbortController();
    const { era, sent } = await connect(
      { "tools/call": [inputRequired()] },
      { "elicitation/create": accept },
    );
    await era.request(
      "tools/call",
      { name: "t", arguments: {} },
      { signal: controller.signal, timeoutMs: 60_000 },
    );
    for (const round of sent) {
      const context = round.context as McpRequestContext;
      expect(context.signal).toBe(controller.signal);
      expect(context.timeoutMs).toBeLessThanOrEqual(60_000);
    }
  });

  it("leaves a handshake-era server's results alone, input_required or not", async () => {
    const { transport, received } = scriptedEraServer(
      {},
      { answers: "each-once", unscripted: inputRequired(), handshake: true },
    );
    const era = negotiateEra(transport);
    era.onRequest("elicitation/create", accept);
    await era.request("initialize", INITIALIZE, never);
    const outcome = await era.request("tools/call", { name: "t" }, never);
    expect(outcome).toEqual(inputRequired());
    expect(received).toEqual(["server/discover", "initialize", "tools/call"]);
  });
});
