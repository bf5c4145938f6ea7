import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { createAnthropicModel, createOpenAiModel } from "../src/index.js";
import { textTurn } from "../src/testing/index.js";
import { statusReply } from "../src/testing/server/index.js";
import { API_KEY, startServer, turn } from "./helpers.js";

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("a failed model request names the URL it tried", () => {
  it("names the endpoint when nothing listens there (both providers)", async () => {
    const port = await closedPort();
    const base = `http://127.0.0.1:${port}`;
    const [openai, anthropic] = await Promise.all([
      turn(createOpenAiModel({ model: "m", apiKey: API_KEY, baseUrl: `${base}/v1`, maxRetries: 0 })),
      turn(createAnthropicModel({ model: "m", apiKey: API_KEY, baseUrl: base, maxRetries: 0 })),
    ]);
    expect(openai.result).toMatchObject({ ok: false, code: "model_unavailable" });
    expect(openai.result.ok ? "" : openai.result.message).toContain(`(POST ${base}/v1/chat/completions)`);
    expect(anthropic.result).toMatchObject({ ok: false, code: "model_unavailable" });
    expect(anthropic.result.ok ? "" : anthropic.result.message).toContain(`(POST ${base}/v1/messages)`);
  });

  it("names the endpoint of a refused request, after the server's message", async () => {
    const server = await startServer([statusReply(404, { message: "no such model" })]);
    const { result } = await turn(
      createOpenAiModel({ model: "m", apiKey: API_KEY, baseUrl: server.openAiBaseUrl, maxRetries: 0 }),
    );
    expect(result.ok ? "" : result.message).toMatch(
      new RegExp(
        `no such model.*\\(POST ${server.openAiBaseUrl.replaceAll(".", "\\.")}/chat/completions\\)$`,
      ),
    );
  });
});

describe("the Anthropic baseUrl", () => {
  for (const suffix of ["", "/", "/v1", "/v1/"]) {
    it(`reaches the API written as <host>${suffix}`, async () => {
      const server = await startServer([textTurn("hello")]);
      const model = createAnthropicModel({
        model: "claude-test",
        apiKey: API_KEY,
        baseUrl: `${server.anthropicBaseUrl}${suffix}`,
        maxRetries: 0,
      });
      const { result } = await turn(model);
      expect(result).toMatchObject({ ok: true, text: "hello" });
      expect(server.requests).toHaveLength(1);
    });
  }
});
