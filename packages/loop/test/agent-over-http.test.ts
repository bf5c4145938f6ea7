import { resumeRun, startRun } from "@agent/loop";
import { createAnthropicModel, createOpenAiModel, type ModelClient } from "@agent/models";
import { textTurn, toolCallTurn } from "@agent/models/testing";
import {
  createFakeModelServer,
  type FakeModelServer,
  hangReply,
  statusReply,
} from "@agent/models/testing/server";
import { grantApprovalRequest } from "@agent/policy";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness } from "./helpers.js";

// The real adapters over real HTTP on loopback, against the fake model server: both wire APIs,
// streamed (onText given) and not.
const CASES = [
  { provider: "openai", stream: false },
  { provider: "openai", stream: true },
  { provider: "anthropic", stream: false },
  { provider: "anthropic", stream: true },
] as const;

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(provider: "openai" | "anthropic", steps: Parameters<typeof createFakeModelServer>[0]) {
  const server = await createFakeModelServer(steps);
  servers.push(server);
  const options = { model: "fake", apiKey: "sk-loop-test", maxRetries: 2 };
  const model: ModelClient =
    provider === "openai"
      ? createOpenAiModel({ ...options, baseUrl: server.openAiBaseUrl })
      : createAnthropicModel({ ...options, baseUrl: server.anthropicBaseUrl });
  return { server, model };
}

describe.each(CASES)("a run over $provider (stream: $stream)", ({ provider, stream }) => {
  const streaming = (text: string[]) => (stream ? { onText: (delta: string) => text.push(delta) } : {});

  it("runs an allowed call and completes", async () => {
    const { server, model } = await serve(provider, [
      toolCallTurn([{ id: "tc_1", name: "echo", input: { text: "ping" } }], "Checking."),
      textTurn("pong"),
    ]);
    const harness = createHarness();
    const text: string[] = [];
    const result = await startRun(harness.env(model, streaming(text)), { prompt: "ping" });
    expect(result).toMatchObject({ status: "completed", output: "pong", turns: 2 });
    expect(harness.executed.echo).toEqual([{ text: "ping" }]);
    expect(server.requests.map((request) => request.stream)).toEqual([stream, stream]);
    if (stream) expect(text.join("")).toBe("Checking.pong");
  });

  it("holds a call and resumes it without a second request for that turn", async () => {
    const { server, model } = await serve(provider, [
      toolCallTurn([{ id: "tc_1", name: "write_note", input: { text: "hi" } }]),
      textTurn("noted"),
    ]);
    const harness = createHarness();
    const env = harness.env(model, streaming([]));
    const waiting = await startRun(env, { prompt: "note" });
    expect(waiting.status).toBe("waiting");
    await grantApprovalRequest(harness.approvals, waiting.requestIds[0] as string);
    const done = await resumeRun(env, { runId: waiting.runId });
    expect(done).toMatchObject({ status: "completed", output: "noted" });
    expect(server.requests).toHaveLength(2);
    expect(harness.executed.write_note).toHaveLength(1);
  });

  it("retries a transient 500, and fails on a 401 without retrying", async () => {
    const { server, model } = await serve(provider, [
      statusReply(500, { headers: { "retry-after-ms": "1" } }),
      textTurn("ok"),
      statusReply(401, { message: "bad key" }),
    ]);
    const harness = createHarness();
    const ok = await startRun(harness.env(model, streaming([])), { prompt: "hi" });
    expect(ok).toMatchObject({ status: "completed", output: "ok" });
    expect(server.requests).toHaveLength(2);
    const failed = await startRun(harness.env(model, streaming([])), { prompt: "hi" });
    expect(failed).toMatchObject({ status: "failed", error: { code: "model_authentication" } });
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(failed.state)).not.toContain("sk-loop-test");
  });

  it("cancels the HTTP request on abort and saves the run resumable", async () => {
    const { server, model } = await serve(provider, [hangReply(), textTurn("later")]);
    const harness = createHarness();
    const controller = new AbortController();
    const running = startRun(harness.env(model, { ...streaming([]), signal: controller.signal }), {
      prompt: "hi",
    });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const cancelled = await running;
    expect(cancelled).toMatchObject({ status: "cancelled", turns: 0 });
    expect(await server.whenClosed(0)).toMatchObject({ completed: false });
    const resumed = await resumeRun(harness.env(model), { runId: cancelled.runId });
    expect(resumed).toMatchObject({ status: "completed", output: "later" });
  });

  it("answers denied, unparsable, mistyped and unknown calls with observations, running none", async () => {
    // A JSON answer of the Anthropic API carries arguments as objects: only its stream can send them cut.
    const textual = provider === "openai" || stream;
    const unparsable = textual ? [{ id: "tc_json", name: "echo", raw: '{"text": "cut' }] : [];
    const { server, model } = await serve(provider, [
      toolCallTurn([
        { id: "tc_deny", name: "rm", input: {} },
        ...unparsable,
        { id: "tc_type", name: "echo", input: { text: 42 } },
        { id: "tc_unknown", name: "launch", input: {} },
      ]),
      textTurn("understood"),
    ]);
    const harness = createHarness();
    const result = await startRun(harness.env(model, streaming([])), { prompt: "try" });
    expect(result).toMatchObject({ status: "completed", output: "understood" });
    expect(harness.executed).toEqual({});
    // Records are kept in the order calls finished; the model reads them in the order it made them.
    const codes = Object.fromEntries(
      result.state.calls.map((call) => [
        call.toolCallId,
        call.observation.ok ? "ok" : call.observation.error,
      ]),
    );
    expect(codes).toEqual({
      tc_deny: "policy_denied",
      ...(textual ? { tc_json: "invalid_arguments" } : {}),
      tc_type: "invalid_arguments",
      tc_unknown: "unknown_tool",
    });
    const body = JSON.stringify(server.requests[1]?.body);
    expect(body).toContain("unknown_tool");
  });

  it("stops at max turns", async () => {
    const again = toolCallTurn([{ id: "tc", name: "echo", input: { text: "again" } }]);
    const { server, model } = await serve(provider, [again, again, again]);
    const harness = createHarness();
    const result = await startRun(harness.env(model, streaming([])), { prompt: "loop", maxTurns: 2 });
    expect(result).toMatchObject({ status: "max_turns", turns: 2 });
    expect(server.requests).toHaveLength(2);
  });

  it("caps an oversized result for the model", async () => {
    const { server, model } = await serve(provider, [
      toolCallTurn([{ id: "tc_1", name: "big", input: {} }]),
      textTurn("long"),
    ]);
    const harness = createHarness();
    await startRun(harness.env(model, { ...streaming([]), maxToolOutputChars: 1_000 }), { prompt: "big" });
    const body = JSON.stringify(server.requests[1]?.body);
    expect(body).toContain("output truncated");
    expect(body).not.toContain("b".repeat(1_000));
  });
});
