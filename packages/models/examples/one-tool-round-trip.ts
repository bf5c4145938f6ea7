// One round trip with a tool: the model asks for the weather, we answer, it replies.
// Run against a local Ollama: `MODEL=llama3.2 node one-tool-round-trip.js`, or against the hosted
// API with MODEL_BASE_URL=https://api.openai.com/v1 and OPENAI_API_KEY set.
import { createOpenAiModel, type ModelMessage, type ModelToolDefinition } from "@agent/models";

const model = createOpenAiModel({
  model: process.env.MODEL ?? "llama3.2",
  apiKey: process.env.OPENAI_API_KEY ?? "ollama-needs-no-key",
  baseUrl: process.env.MODEL_BASE_URL ?? "http://127.0.0.1:11434/v1",
  timeoutMs: 60_000,
});

const tools: ModelToolDefinition[] = [
  {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    },
    strict: true,
  },
];
const messages: ModelMessage[] = [{ role: "user", content: "What is the weather in Paris?" }];
const signal = AbortSignal.timeout(120_000);
const print = (text: string): void => void process.stdout.write(text);

let result = await model.createTurn({ messages, tools, signal, onText: print });
while (result.ok && result.toolCalls.length > 0) {
  messages.push({ role: "assistant", content: result.text, toolCalls: result.toolCalls });
  for (const call of result.toolCalls) {
    // A real harness parses and checks the arguments, then runs the tool through its gate.
    const content = JSON.stringify({ city: JSON.parse(call.arguments).city, sky: "sunny", celsius: 21 });
    messages.push({ role: "tool", toolCallId: call.id, toolName: call.name, content, isError: false });
  }
  result = await model.createTurn({ messages, tools, signal, onText: print });
}
if (result.ok)
  print(`\n[${result.stopReason}, ${result.usage.inputTokens}+${result.usage.outputTokens} tokens]\n`);
else {
  process.stderr.write(`${result.code}: ${result.message}\n`);
  process.exitCode = 1;
}
