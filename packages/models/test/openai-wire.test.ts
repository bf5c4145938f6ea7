import { describe, expect, it } from "vitest";
import { createOpenAiModel } from "../src/index.js";
import { textTurn, toolCallTurn } from "../src/testing/index.js";
import { API_KEY, bodyOf, CONVERSATION, ECHO, startServer, turn, WEATHER } from "./helpers.js";

function model(baseUrl: string) {
  return createOpenAiModel({ model: "gpt-test", apiKey: API_KEY, baseUrl, maxRetries: 0 });
}

describe.each([
  ["plain", false],
  ["streaming", true],
] as const)("OpenAI wire format (%s)", (_label, stream) => {
  it("sends the key, the model, the system prompt and no tools when there are none", async () => {
    const server = await startServer([textTurn("hi")]);
    await turn(model(server.openAiBaseUrl), { system: "Be brief." }, stream);
    const [received] = server.requests;
    expect(received?.path).toBe("/v1/chat/completions");
    expect(received?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(received?.body).toEqual({
      model: "gpt-test",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hello" },
      ],
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : { stream: false }),
    });
  });

  it("sends function tools, strict with the strict parameters only where the definition asks", async () => {
    const server = await startServer([textTurn("ok")]);
    await turn(model(server.openAiBaseUrl), { tools: [WEATHER, ECHO] }, stream);
    expect(bodyOf(server).tools).toEqual([
      { type: "function", function: { ...WEATHER, strict: true } },
      { type: "function", function: { name: "echo", description: "Echo", parameters: { type: "object" } } },
    ]);
  });

  it("passes arguments the model produced through as raw text, even when they are not JSON", async () => {
    const server = await startServer([
      toolCallTurn([{ id: "call_9", name: "echo", raw: '{"text": "unterminated' }]),
    ]);
    const { result } = await turn(model(server.openAiBaseUrl), { tools: [ECHO] }, stream);
    expect(result).toMatchObject({
      ok: true,
      toolCalls: [{ id: "call_9", name: "echo", arguments: '{"text": "unterminated' }],
    });
  });

  it("sends a multi-turn conversation: assistant tool calls, tool results, the output limit", async () => {
    const server = await startServer([textTurn("It is sunny.")]);
    const { result } = await turn(
      model(server.openAiBaseUrl),
      { messages: CONVERSATION, maxOutputTokens: 100 },
      stream,
    );
    expect(result).toMatchObject({ ok: true, text: "It is sunny." });
    expect(bodyOf(server).max_completion_tokens).toBe(100);
    expect(bodyOf(server).messages).toEqual([
      { role: "user", content: "Weather in Paris and Oslo?" },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
          { id: "call_2", type: "function", function: { name: "get_weather", arguments: "not json" } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
      { role: "tool", tool_call_id: "call_2", content: "invalid_arguments" },
      { role: "user", content: "Also tomorrow?" },
      { role: "assistant", content: "" },
      { role: "assistant", content: "Tomorrow too." },
      { role: "user", content: "Thanks" },
    ]);
  });
});
