import { describe, expect, it } from "vitest";
import { textTurn, toolCallTurn } from "../src/testing/index.js";
import { createFakeModelServer, statusReply } from "../src/testing/server/index.js";
import { startServer } from "./helpers.js";

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

function dataLines(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice("data: ".length));
}

describe("createFakeModelServer", () => {
  it("binds 127.0.0.1 on a free port and records bodies and headers", async () => {
    const server = await startServer([textTurn("hi")]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await post(
      `${server.openAiBaseUrl}/chat/completions`,
      { model: "m", messages: [] },
      {
        authorization: "Bearer k",
      },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      object: "chat.completion",
      model: "m",
      choices: [{ message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
    });
    expect(server.requests[0]).toMatchObject({
      api: "openai",
      path: "/v1/chat/completions",
      headers: { authorization: "Bearer k" },
      body: { model: "m", messages: [] },
      stream: false,
    });
    expect((await server.whenClosed(0)).completed).toBe(true);
    expect(server.remaining).toBe(0);
  });

  it("streams OpenAI chunks: tool call arguments split across chunks, a usage chunk, then [DONE]", async () => {
    const server = await startServer([
      {
        ...toolCallTurn([{ id: "c1", name: "echo", input: { text: "hello world" } }]),
        usage: { inputTokens: 3, outputTokens: 4 },
      },
    ]);
    const response = await post(`${server.openAiBaseUrl}/chat/completions`, {
      model: "m",
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const lines = dataLines(await response.text());
    expect(lines.at(-1)).toBe("[DONE]");
    const chunks = lines.slice(0, -1).map((line) => JSON.parse(line));
    const pieces = chunks.flatMap(
      (chunk) => chunk.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? [],
    );
    expect(pieces.filter((piece: string) => piece !== "").length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe('{"text":"hello world"}');
    expect(chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe(
      "tool_calls",
    );
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } });
  });

  it("streams Anthropic events in order with text_delta and input_json_delta", async () => {
    const server = await startServer([
      toolCallTurn([{ id: "t1", name: "echo", input: { a: 1 } }], "Hi there"),
    ]);
    const response = await post(`${server.anthropicBaseUrl}/v1/messages`, { model: "c", stream: true });
    const text = await response.text();
    const events = text
      .split("\n")
      .filter((line) => line.startsWith("event: "))
      .map((line) => line.slice("event: ".length));
    expect(events[0]).toBe("message_start");
    expect(events.slice(-2)).toEqual(["message_delta", "message_stop"]);
    const deltas = dataLines(text)
      .map((line) => JSON.parse(line))
      .filter((event) => event.type === "content_block_delta")
      .map((event) => event.delta.type);
    expect(deltas).toContain("text_delta");
    expect(deltas).toContain("input_json_delta");
    expect(server.requests[0]).toMatchObject({ api: "anthropic", stream: true });
  });

  it("answers a status with the API's error body and headers, and 400 past the end of its script", async () => {
    const server = await startServer([
      statusReply(429, { headers: { "retry-after": "7" }, message: "slow" }),
    ]);
    const limited = await post(`${server.anthropicBaseUrl}/v1/messages`, {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(await limited.json()).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "slow" },
    });
    const past = await post(`${server.anthropicBaseUrl}/v1/messages`, {});
    expect(past.status).toBe(400);
    expect(JSON.stringify(await past.json())).toContain("no more steps");
    server.push(textTurn("more"));
    expect((await post(`${server.openAiBaseUrl}/chat/completions`, {})).status).toBe(200);
  });

  it("answers 404 for other routes, and 400 for an Anthropic JSON turn whose arguments are no object", async () => {
    const server = await startServer([toolCallTurn([{ id: "t1", name: "echo", raw: "[1" }])]);
    expect((await post(`${server.url}/v1/embeddings`, {})).status).toBe(404);
    const refused = await post(`${server.anthropicBaseUrl}/v1/messages`, {});
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain("not a JSON object");
  });

  it("waits in whenClosed for a request that has not arrived yet", async () => {
    const server = await startServer([textTurn("later")]);
    const closed = server.whenClosed(0);
    await post(`${server.openAiBaseUrl}/chat/completions`, {}).then((response) => response.text());
    expect(await closed).toMatchObject({ completed: true, closed: true });
    await expect(server.whenClosed(-1)).rejects.toThrow(RangeError);
  });

  it("closes idempotently, dropping a hanging connection", async () => {
    const server = await createFakeModelServer([{ kind: "hang" }]);
    const pending = post(`${server.openAiBaseUrl}/chat/completions`, {}).catch((error: unknown) => error);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await Promise.all([server.close(), server.close()]);
    expect(await pending).toBeInstanceOf(Error);
    expect((await server.whenClosed(0)).completed).toBe(false);
    await expect(post(`${server.openAiBaseUrl}/chat/completions`, {})).rejects.toThrow();
  });
});
