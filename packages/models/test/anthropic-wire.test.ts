import { describe, expect, it } from "vitest";
import { createAnthropicModel } from "../src/index.js";
import { textTurn, toolCallTurn } from "../src/testing/index.js";
import { API_KEY, bodyOf, CONVERSATION, ECHO, startServer, turn, WEATHER } from "./helpers.js";

function model(baseUrl: string, maxOutputTokens?: number) {
  return createAnthropicModel({
    model: "claude-test",
    apiKey: API_KEY,
    baseUrl,
    maxRetries: 0,
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
  });
}

describe.each([
  ["plain", false],
  ["streaming", true],
] as const)("Anthropic wire format (%s)", (_label, stream) => {
  it("sends the key, the model, the system prompt, max_tokens and no tools when there are none", async () => {
    const server = await startServer([textTurn("hi")]);
    await turn(model(server.anthropicBaseUrl, 321), { system: "Be brief." }, stream);
    const [received] = server.requests;
    expect(received?.path).toBe("/v1/messages");
    expect(received?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(received?.headers["anthropic-version"]).toBeTypeOf("string");
    expect(received?.body).toEqual({
      model: "claude-test",
      max_tokens: 321,
      system: "Be brief.",
      messages: [{ role: "user", content: "hello" }],
      ...(stream ? { stream: true } : {}),
    });
  });

  it("sends tools with input_schema, strict only where the definition asks", async () => {
    const server = await startServer([textTurn("ok")]);
    await turn(model(server.anthropicBaseUrl), { tools: [WEATHER, ECHO], maxOutputTokens: 50 }, stream);
    expect(server.requests[0]?.body).toMatchObject({
      max_tokens: 50,
      tools: [
        {
          name: "get_weather",
          description: "Weather for a city",
          input_schema: WEATHER.parameters,
          strict: true,
        },
        { name: "echo", description: "Echo", input_schema: { type: "object" } },
      ],
    });
    expect((bodyOf(server).tools as unknown[])[1]).not.toHaveProperty("strict");
  });

  it("returns tool_use input as JSON text", async () => {
    const server = await startServer([
      toolCallTurn([{ id: "toolu_1", name: "echo", input: { text: "hi", n: [1, 2] } }]),
    ]);
    const { result } = await turn(model(server.anthropicBaseUrl), { tools: [ECHO] }, stream);
    expect(result).toMatchObject({
      ok: true,
      text: null,
      stopReason: "tool_use",
      toolCalls: [{ id: "toolu_1", name: "echo", arguments: '{"text":"hi","n":[1,2]}' }],
    });
  });

  it("sends tool_use blocks and merges consecutive tool results (and a following user text) into one user message", async () => {
    const server = await startServer([textTurn("It is sunny.")]);
    await turn(model(server.anthropicBaseUrl), { messages: CONVERSATION }, stream);
    expect(bodyOf(server).messages).toEqual([
      { role: "user", content: "Weather in Paris and Oslo?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "call_2", name: "get_weather", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_1", content: "sunny" },
          { type: "tool_result", tool_use_id: "call_2", content: "invalid_arguments", is_error: true },
          { type: "text", text: "Also tomorrow?" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "Tomorrow too." }] },
      { role: "user", content: "Thanks" },
    ]);
  });
});

describe("Anthropic streaming", () => {
  it("returns the raw streamed arguments of a tool call cut short, not the SDK's lenient repair", async () => {
    const server = await startServer([
      {
        ...toolCallTurn([{ id: "toolu_1", name: "echo", raw: '{"text": "unterminated' }]),
        stopReason: "max_tokens",
      },
    ]);
    const { result } = await turn(model(server.anthropicBaseUrl), { tools: [ECHO] }, true);
    expect(result).toMatchObject({
      ok: true,
      stopReason: "max_tokens",
      toolCalls: [{ id: "toolu_1", name: "echo", arguments: '{"text": "unterminated' }],
    });
  });
});
