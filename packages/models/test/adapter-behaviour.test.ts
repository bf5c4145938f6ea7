import { describe, expect, it } from "vitest";
import { createAnthropicModel, createOpenAiModel, type ModelClient } from "../src/index.js";
import { textTurn, toolCallTurn } from "../src/testing/index.js";
import {
  type FakeModelServer,
  hangReply,
  malformedReply,
  statusReply,
  streamErrorReply,
} from "../src/testing/server/index.js";
import { API_KEY, request, startServer, turn, waitFor } from "./helpers.js";

interface Limits {
  timeoutMs?: number;
  maxRetries?: number;
}

const ADAPTERS = {
  openai: (server: FakeModelServer, limits: Limits = {}): ModelClient =>
    createOpenAiModel({
      model: "gpt-test",
      apiKey: API_KEY,
      baseUrl: server.openAiBaseUrl,
      maxRetries: 0,
      ...limits,
    }),
  anthropic: (server: FakeModelServer, limits: Limits = {}): ModelClient =>
    createAnthropicModel({
      model: "claude-test",
      apiKey: API_KEY,
      baseUrl: server.anthropicBaseUrl,
      maxRetries: 0,
      ...limits,
    }),
};

const CASES = (["openai", "anthropic"] as const).flatMap((provider) =>
  ([false, true] as const).map(
    (stream) => [`${provider} ${stream ? "streaming" : "plain"}`, provider, stream] as const,
  ),
);

describe.each(CASES)("%s", (_label, provider, stream) => {
  const adapter = ADAPTERS[provider];

  it("returns a text turn with its usage, streaming the text in pieces", async () => {
    const server = await startServer([
      { ...textTurn("Hello there, friend!"), usage: { inputTokens: 7, outputTokens: 5 } },
    ]);
    const model = adapter(server);
    expect(model.provider).toBe(provider);
    const { result, deltas } = await turn(model, {}, stream);
    expect(result).toEqual({
      ok: true,
      text: "Hello there, friend!",
      toolCalls: [],
      stopReason: "end_turn",
      usage: { inputTokens: 7, outputTokens: 5 },
    });
    expect(server.requests[0]?.stream).toBe(stream);
    if (stream) {
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join("")).toBe("Hello there, friend!");
    }
  });

  it("returns tool calls, their arguments assembled from the streamed pieces", async () => {
    const server = await startServer([
      toolCallTurn(
        [
          { id: "call_1", name: "get_weather", input: { city: "Paris", unit: null } },
          { id: "call_2", name: "get_time", input: { zone: "Europe/Oslo" } },
        ],
        "Let me check.",
      ),
    ]);
    const { result } = await turn(adapter(server), {}, stream);
    expect(result).toMatchObject({
      ok: true,
      text: "Let me check.",
      stopReason: "tool_use",
      toolCalls: [
        { id: "call_1", name: "get_weather", arguments: '{"city":"Paris","unit":null}' },
        { id: "call_2", name: "get_time", arguments: '{"zone":"Europe/Oslo"}' },
      ],
    });
  });

  it.each(["max_tokens", "refusal"] as const)("maps the stop reason %s", async (stopReason) => {
    const server = await startServer([{ ...textTurn("cut"), stopReason }]);
    expect((await turn(adapter(server), {}, stream)).result).toMatchObject({ ok: true, stopReason });
  });

  it("retries a transient 500 with the SDK's backoff", async () => {
    const server = await startServer([
      statusReply(500, { headers: { "retry-after-ms": "1" } }),
      textTurn("ok"),
    ]);
    const { result } = await turn(adapter(server, { maxRetries: 2 }), {}, stream);
    expect(result).toMatchObject({ ok: true, text: "ok" });
    expect(server.requests).toHaveLength(2);
  });

  it("reports a 5xx that persists after the retries as unavailable", async () => {
    const down = () => statusReply(503, { headers: { "retry-after-ms": "1" } });
    const server = await startServer([down(), down()]);
    const { result } = await turn(adapter(server, { maxRetries: 1 }), {}, stream);
    expect(result).toMatchObject({ ok: false, code: "model_unavailable", status: 503 });
    expect(server.requests).toHaveLength(2);
  });

  it("does not retry a 401, and keeps the key out of the message even when the server echoes it", async () => {
    const server = await startServer([
      (received) =>
        statusReply(401, {
          message: `Invalid key. You sent ${received.headers.authorization ?? ""} / ${received.headers["x-api-key"] ?? ""} (${API_KEY})`,
        }),
    ]);
    const { result } = await turn(adapter(server, { maxRetries: 3 }), {}, stream);
    expect(result).toMatchObject({ ok: false, code: "model_authentication", status: 401 });
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]?.headers)).toContain(API_KEY);
    expect(JSON.stringify(result)).not.toContain(API_KEY);
  });

  it("reports a 403 as an authentication failure", async () => {
    const server = await startServer([statusReply(403)]);
    expect((await turn(adapter(server, { maxRetries: 2 }), {}, stream)).result).toMatchObject({
      ok: false,
      code: "model_authentication",
      status: 403,
    });
    expect(server.requests).toHaveLength(1);
  });

  it("retries a 429 as its retry-after says, then reports it as rate limited", async () => {
    const limited = () => statusReply(429, { headers: { "retry-after": "0.001" }, message: "slow down" });
    const server = await startServer([limited(), limited()]);
    const { result } = await turn(adapter(server, { maxRetries: 1 }), {}, stream);
    expect(result).toMatchObject({ ok: false, code: "model_rate_limited", status: 429 });
    expect(server.requests).toHaveLength(2);
  });

  it("reports another 4xx as a bad request, not retried", async () => {
    const server = await startServer([statusReply(400, { message: "model not found" })]);
    const { result } = await turn(adapter(server, { maxRetries: 2 }), {}, stream);
    expect(result).toMatchObject({ ok: false, code: "model_bad_request", status: 400 });
    expect(result.ok ? "" : result.message).toContain("model not found");
    expect(server.requests).toHaveLength(1);
  });

  it("times out when the server never answers", async () => {
    const server = await startServer([hangReply()]);
    const { result } = await turn(adapter(server, { timeoutMs: 100 }), {}, stream);
    // On a loaded machine the client may give up before the server has even read the request.
    expect(result).toMatchObject({ ok: false, code: "model_timeout" });
  });

  it("times out an answer that starts and then goes silent", async () => {
    // On a loaded machine the headers themselves may miss the short limit; the SDK then retries, and
    // a later attempt reaches the silence. Either way the outcome is the silence's timeout.
    const server = await startServer([1, 2, 3].map(() => hangReply({ partial: true })));
    const { result } = await turn(adapter(server, { timeoutMs: 400, maxRetries: 2 }), {}, stream);
    expect(result).toMatchObject({ ok: false, code: "model_timeout" });
    expect(result.ok ? "" : result.message).toContain("after it started");
    expect((await server.whenClosed(server.requests.length - 1)).completed).toBe(false);
  });

  it("cancels mid-request: the caller's signal closes the HTTP request", async () => {
    const server = await startServer([hangReply()]);
    const controller = new AbortController();
    const pending = adapter(server).createTurn(
      request({ signal: controller.signal, ...(stream ? { onText: () => {} } : {}) }),
    );
    await waitFor(() => server.requests.length === 1);
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, code: "model_cancelled" });
    expect((await server.whenClosed(0)).completed).toBe(false);
  });

  it("cancels during the SDK's retry wait without sitting it out", async () => {
    // retry-after 30 s: the SDK waits that long before its retry, longer than this test may take.
    // The Anthropic SDK ends its wait on abort; the openai SDK does not, so its adapter stops waiting for it.
    const server = await startServer([
      statusReply(429, { headers: { "retry-after": "30" } }),
      textTurn("late"),
    ]);
    const controller = new AbortController();
    const pending = adapter(server, { maxRetries: 1 }).createTurn(
      request({ signal: controller.signal, ...(stream ? { onText: () => {} } : {}) }),
    );
    await waitFor(() => server.requests.length === 1 && server.requests[0]?.closed === true);
    // Give the client time to reach its wait (a shorter pause only makes the test less strict).
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, code: "model_cancelled" });
    expect(server.requests).toHaveLength(1);
  });

  it("sends nothing when the signal is already aborted", async () => {
    const server = await startServer([textTurn("never")]);
    const controller = new AbortController();
    controller.abort();
    expect(await adapter(server).createTurn(request({ signal: controller.signal }))).toMatchObject({
      ok: false,
      code: "model_cancelled",
    });
    expect(server.requests).toHaveLength(0);
  });

  it("reports a malformed answer as invalid, not as a thrown error", async () => {
    const server = await startServer([malformedReply()]);
    const { result } = await turn(adapter(server), {}, stream);
    expect(result).toMatchObject({ ok: false, code: "model_invalid_response" });
  });

  it("reports an unreachable server as unavailable", async () => {
    const server = await startServer();
    await server.close();
    const { result } = await turn(adapter(server), {}, stream);
    expect(result).toMatchObject({ ok: false, code: "model_unavailable" });
  });
});

describe.each(["openai", "anthropic"] as const)("%s streaming only", (provider) => {
  const adapter = ADAPTERS[provider];

  it("cancels mid-stream: text arrived, then the signal closes the connection", async () => {
    const server = await startServer([hangReply({ streamText: "Partial" })]);
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = adapter(server).createTurn(
      request({ signal: controller.signal, onText: (delta) => deltas.push(delta) }),
    );
    await waitFor(() => deltas.length > 0);
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, code: "model_cancelled" });
    expect(deltas).toEqual(["Partial"]);
    expect((await server.whenClosed(0)).completed).toBe(false);
  });

  it("times out a stream that stalls after it started", async () => {
    const server = await startServer([1, 2, 3].map(() => hangReply({ streamText: "Hel" })));
    const { result, deltas } = await turn(adapter(server, { timeoutMs: 400, maxRetries: 2 }), {}, true);
    expect(deltas).toEqual(["Hel"]);
    expect(result).toMatchObject({ ok: false, code: "model_timeout" });
    expect(result.ok ? "" : result.message).toContain("after it started");
  });

  it("reports an error event inside the stream by its type, without retrying it", async () => {
    const server = await startServer([
      streamErrorReply({ message: "Overloaded" }),
      streamErrorReply({ errorType: "rate_limit_error" }),
    ]);
    const model = adapter(server, { maxRetries: 2 });
    const overloaded = (await turn(model, {}, true)).result;
    expect(overloaded).toMatchObject({ ok: false, code: "model_unavailable" });
    expect(overloaded.ok ? "" : overloaded.message).toContain("Overloaded");
    expect(server.requests).toHaveLength(1);
    expect((await turn(model, {}, true)).result).toMatchObject({ ok: false, code: "model_rate_limited" });
  });

  it("reports a stream that ends before the turn is complete as invalid", async () => {
    const server = await startServer([malformedReply("truncated")]);
    expect((await turn(adapter(server), {}, true)).result).toMatchObject({
      ok: false,
      code: "model_invalid_response",
    });
  });

  it("rethrows an error of the caller's onText callback and closes the stream", async () => {
    const server = await startServer([textTurn("a longer text in pieces")]);
    const failing = adapter(server).createTurn(
      request({
        onText: () => {
          throw new Error("callback bug");
        },
      }),
    );
    await expect(failing).rejects.toThrow("callback bug");
    await server.whenClosed(0);
  });
});
