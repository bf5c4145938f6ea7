import { describe, expect, it } from "vitest";
import { createAnthropicModel, createOpenAiModel, type ModelClient } from "../src/index.js";
import {
  type FakeModelServer,
  type FakeModelServerRequest,
  type FakeServerStep,
  hangReply,
  malformedReply,
  statusReply,
  streamErrorReply,
} from "../src/testing/server/index.js";
import { API_KEY, request, startServer, turn, waitFor } from "./helpers.js";

// Everything the client sent, credentials included, as a hostile or careless server might echo it.
const echo = (received: FakeModelServerRequest): string =>
  `you sent ${JSON.stringify(received.headers)} key=${API_KEY} Bearer ${API_KEY}`;

const STEPS: Array<[string, FakeServerStep]> = [
  ["401", (received) => statusReply(401, { message: echo(received) })],
  ["403", (received) => statusReply(403, { message: echo(received) })],
  ["400", (received) => statusReply(400, { message: echo(received) })],
  ["404 with a raw body", (received) => statusReply(404, { body: { detail: echo(received) } })],
  ["429", (received) => statusReply(429, { message: echo(received) })],
  ["500", (received) => statusReply(500, { message: echo(received) })],
  ["an error event in the stream", (received) => streamErrorReply({ message: echo(received) })],
  ["a malformed answer", malformedReply()],
  ["a timeout", hangReply()],
];

const ADAPTERS: Record<string, (server: FakeModelServer) => ModelClient> = {
  openai: (server) =>
    createOpenAiModel({
      model: "m",
      apiKey: API_KEY,
      baseUrl: server.openAiBaseUrl,
      maxRetries: 0,
      timeoutMs: 200,
    }),
  anthropic: (server) =>
    createAnthropicModel({
      model: "m",
      apiKey: API_KEY,
      baseUrl: server.anthropicBaseUrl,
      maxRetries: 0,
      timeoutMs: 200,
    }),
};

describe.each(Object.keys(ADAPTERS))("%s: the API key appears in no failure", (provider) => {
  const adapter = ADAPTERS[provider] as (server: FakeModelServer) => ModelClient;

  it.each([false, true])("for any answer the server gives (streaming: %s)", async (stream) => {
    const server = await startServer(STEPS.map(([, step]) => step));
    const model = adapter(server);
    for (const [label, _step] of STEPS) {
      const { result } = await turn(model, {}, stream);
      expect(result.ok, label).toBe(false);
      expect(JSON.stringify(result), label).not.toContain(API_KEY);
    }
    // The server did receive the key: the absence above is redaction, not a key never sent.
    expect(JSON.stringify(server.requests[0]?.headers)).toContain(API_KEY);
  });

  it("when cancelled", async () => {
    const server = await startServer([hangReply()]);
    const controller = new AbortController();
    const pending = adapter(server).createTurn(request({ signal: controller.signal }));
    await waitFor(() => server.requests.length === 1);
    controller.abort(new Error(`aborted while holding ${API_KEY}`));
    const result = await pending;
    expect(result).toMatchObject({ ok: false, code: "model_cancelled" });
    expect(JSON.stringify(result)).not.toContain(API_KEY);
  });
});
