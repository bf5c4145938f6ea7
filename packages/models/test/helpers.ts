import { afterEach } from "vitest";
import type {
  ModelClient,
  ModelMessage,
  ModelRequest,
  ModelResult,
  ModelToolDefinition,
} from "../src/index.js";
import {
  createFakeModelServer,
  type FakeModelServer,
  type FakeModelServerOptions,
  type FakeServerStep,
} from "../src/testing/server/index.js";

/** A key that must never show up in a failure message. */
export const API_KEY = "sk-test-0123456789abcdefSECRET";

const servers: FakeModelServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Starts a fake model server that the current test closes when it ends. */
export async function startServer(
  steps: FakeServerStep[] = [],
  options?: FakeModelServerOptions,
): Promise<FakeModelServer> {
  const server = await createFakeModelServer(steps, options);
  servers.push(server);
  return server;
}

/** A request with a fresh signal; pass `onText` to stream. */
export function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    messages: [{ role: "user", content: "hello" }],
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Runs one turn and collects streamed text. */
export async function turn(
  model: ModelClient,
  overrides: Partial<ModelRequest> = {},
  stream = false,
): Promise<{ result: ModelResult; deltas: string[] }> {
  const deltas: string[] = [];
  const result = await model.createTurn(
    request(stream ? { onText: (delta) => deltas.push(delta), ...overrides } : overrides),
  );
  return { result, deltas };
}

/** Polls until `condition` holds (tests assert behaviour, not timing). */
export async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** The parsed JSON body of the server's request `index`; fails the test when there is none. */
export function bodyOf(server: FakeModelServer, index = 0): Record<string, unknown> {
  const body = server.requests[index]?.body;
  if (typeof body !== "object" || body === null) throw new Error(`request ${index} has no JSON body`);
  return body as Record<string, unknown>;
}

/** A strict function definition (its parameters already the strict variant). */
export const WEATHER: ModelToolDefinition = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" }, unit: { type: ["string", "null"] } },
    required: ["city", "unit"],
    additionalProperties: false,
  },
  strict: true,
};

/** A loose function definition. */
export const ECHO: ModelToolDefinition = {
  name: "echo",
  description: "Echo",
  parameters: { type: "object" },
};

/**
 * A conversation past one tool round: an assistant turn with text and two calls (the second with
 * arguments that are not JSON), both results (the second an error), a user follow-up, an empty
 * assistant turn, an assistant text and a last user message.
 */
export const CONVERSATION: ModelMessage[] = [
  { role: "user", content: "Weather in Paris and Oslo?" },
  {
    role: "assistant",
    content: "Checking.",
    toolCalls: [
      { id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { id: "call_2", name: "get_weather", arguments: "not json" },
    ],
  },
  { role: "tool", toolCallId: "call_1", toolName: "get_weather", content: "sunny", isError: false },
  {
    role: "tool",
    toolCallId: "call_2",
    toolName: "get_weather",
    content: "invalid_arguments",
    isError: true,
  },
  { role: "user", content: "Also tomorrow?" },
  { role: "assistant", content: null, toolCalls: [] },
  { role: "assistant", content: "Tomorrow too.", toolCalls: [] },
  { role: "user", content: "Thanks" },
];
