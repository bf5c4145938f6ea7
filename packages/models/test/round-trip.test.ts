import { describe, expect, it } from "vitest";
import { createAnthropicModel, createOpenAiModel, type ModelMessage } from "../src/index.js";
import { createScriptedModel, textTurn } from "../src/testing/index.js";
import { API_KEY, CONVERSATION, ECHO, request, startServer, turn, WEATHER } from "./helpers.js";

// What each wire API cannot carry, as the decoded request shows it.
const [question, assistant, firstResult, secondResult, followUp, empty, ...rest] = CONVERSATION as [
  ModelMessage,
  Extract<ModelMessage, { role: "assistant" }>,
  ModelMessage,
  Extract<ModelMessage, { role: "tool" }>,
  ModelMessage,
  Extract<ModelMessage, { role: "assistant" }>,
  ...ModelMessage[],
];
const AS_OPENAI_SEES_IT: ModelMessage[] = [
  question,
  assistant,
  firstResult,
  { ...secondResult, isError: false }, // no error flag on a tool message
  followUp,
  { ...empty, content: "" }, // sent with empty content
  ...rest,
];
const AS_ANTHROPIC_SEES_IT: ModelMessage[] = [
  question,
  {
    ...assistant,
    toolCalls: [
      assistant.toolCalls[0],
      { ...assistant.toolCalls[1], arguments: "{}" },
    ] as typeof assistant.toolCalls,
  }, // tool input must be an object
  firstResult,
  secondResult,
  followUp,
  ...rest, // the empty assistant message is left out
];

describe.each([
  ["openai", AS_OPENAI_SEES_IT],
  ["anthropic", AS_ANTHROPIC_SEES_IT],
] as const)("%s: the fake server decodes what the adapter sent", (provider, expectedMessages) => {
  it.each([false, true])("back into the neutral request (streaming: %s)", async (stream) => {
    const server = await startServer([textTurn("ok")]);
    const model =
      provider === "openai"
        ? createOpenAiModel({ model: "m", apiKey: API_KEY, baseUrl: server.openAiBaseUrl, maxRetries: 0 })
        : createAnthropicModel({
            model: "m",
            apiKey: API_KEY,
            baseUrl: server.anthropicBaseUrl,
            maxRetries: 0,
          });
    const sent = { system: "Be brief.", messages: CONVERSATION, tools: [WEATHER, ECHO], maxOutputTokens: 64 };
    await turn(model, sent, stream);
    expect(server.requests[0]?.modelRequest).toEqual({ ...sent, messages: expectedMessages });
  });
});

describe("the scripted model", () => {
  it("records the same shape", async () => {
    const model = createScriptedModel([textTurn("ok")]);
    const sent = { system: "Be brief.", messages: CONVERSATION, tools: [WEATHER, ECHO], maxOutputTokens: 64 };
    await model.createTurn(request(sent));
    expect(model.requests[0]).toEqual(sent);
  });
});
