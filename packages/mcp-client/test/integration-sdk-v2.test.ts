/**
 * The whole client against a real 2026-07-28 server (the official SDK v2, `@modelcontextprotocol/server`)
 * over Streamable HTTP on loopback and over stdio: the era negotiated, the tools listed, a call
 * carrying the envelope, and a cancellation the server's handler sees as an abort.
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readRecordFile, startLoopbackHttpServer } from "@agent/mcp-testing/servers";
import { createStreamableHttpTransport } from "@agent/mcp-transport/http";
import { type ExecutionEnvironment, executeToolCall } from "@agent/tools";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  createClientHarness,
  reapOrFail,
  stdioHarness,
  temporaryDirectory,
  waitFor,
} from "./integration-helpers.js";

const V2_SERVER = fileURLToPath(new URL("./fixtures/sdk-v2-server.mjs", import.meta.url));

async function v2HttpHarness(callTimeoutMs?: number) {
  const records = join(temporaryDirectory(), "records.jsonl");
  const server = await startLoopbackHttpServer(V2_SERVER, ["http"], {
    env: { MCP_TESTING_RECORD_FILE: records },
  });
  const harness = createClientHarness(
    () => createStreamableHttpTransport({ url: server.url, closeTimeoutMs: 1_000 }),
    { name: "v2", allow: ["echo", "wait"], ...(callTimeoutMs === undefined ? {} : { callTimeoutMs }) },
  );
  onTestFinished(async () => {
    await harness.connection.close();
    const tracked = server.processes();
    await server.kill();
    await reapOrFail(tracked);
  });
  return { harness, records: () => readRecordFile(records) };
}

/**
 * Starts the `wait` tool, cancels it once the server has it, and waits for the server's handler to
 * see the abort: the observation is `cancelled` on both transports.
 */
async function cancelWhileWaiting(
  harness: { env: ExecutionEnvironment },
  records: () => Record<string, unknown>[],
  callId: string,
): Promise<void> {
  const controller = new AbortController();
  const pending = executeToolCall(
    { name: "mcp__v2__wait", input: {}, callId },
    { ...harness.env, signal: controller.signal },
  );
  await waitFor(
    () => records().some((entry) => entry.event === "called"),
    undefined,
    "the call reaching the server",
  );
  controller.abort();
  expect(await pending).toMatchObject({ type: "observation", ok: false, error: "cancelled" });
  await waitFor(() => records().some((entry) => entry.event === "aborted"), undefined, "the server's abort");
}

describe("a real 2026-07-28 server (SDK v2) over Streamable HTTP", () => {
  it("negotiates 2026-07-28, lists its tools and calls one with the envelope", async () => {
    const { harness, records } = await v2HttpHarness();
    await harness.connection.start();
    expect(harness.transport().era()).toMatchObject({ kind: "stateless", protocolVersion: "2026-07-28" });
    const names = harness.registry.listGroup(harness.connection.group).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["mcp__v2__echo", "mcp__v2__wait"]));

    const outcome = await executeToolCall(
      { name: "mcp__v2__echo", input: { text: "hello" }, callId: "call_echo" },
      harness.env,
    );
    expect(outcome).toMatchObject({ type: "observation", ok: true });
    expect(JSON.stringify(outcome)).toContain("hello");
    expect(records()).toContainEqual(
      expect.objectContaining({ event: "called", protocolVersion: "2026-07-28" }),
    );
  });

  // On 2026-07-28 HTTP the cancellation is closing the call's response stream: no notification.
  it("cancels a call: the server's handler sees its abort", async () => {
    const { harness, records } = await v2HttpHarness();
    await harness.connection.start();
    await cancelWhileWaiting(harness, records, "call_wait");
    // The closed stream was the whole cancellation: no notification, no resumption, no error.
    const received = records().filter((entry) => entry.event === "received");
    expect(received).not.toContainEqual(expect.objectContaining({ method: "notifications/cancelled" }));
    expect(received).not.toContainEqual(expect.objectContaining({ httpMethod: "GET" }));
    expect(harness.transportErrors).toEqual([]);
    // The connection is untouched: the next call is answered.
    const next = await executeToolCall(
      { name: "mcp__v2__echo", input: { text: "after" }, callId: "call_after" },
      harness.env,
    );
    expect(next).toMatchObject({ type: "observation", ok: true });
  });

  it("a call that times out closes its stream: the server's handler sees the abort", async () => {
    const { harness, records } = await v2HttpHarness(300);
    await harness.connection.start();
    const outcome = await executeToolCall(
      { name: "mcp__v2__wait", input: {}, callId: "call_timeout" },
      harness.env,
    );
    expect(outcome).toMatchObject({ type: "observation", ok: false, error: "timeout" });
    await waitFor(
      () => records().some((entry) => entry.event === "aborted"),
      undefined,
      "the server's abort",
    );
    expect(records()).not.toContainEqual(expect.objectContaining({ method: "notifications/cancelled" }));
  });
});

function v2StdioHarness(allow: string[]) {
  const records = join(temporaryDirectory(), "records.jsonl");
  const harness = stdioHarness(
    { command: process.execPath, args: [V2_SERVER, "stdio"], env: { MCP_TESTING_RECORD_FILE: records } },
    { name: "v2", allow },
  );
  return { harness, records: () => readRecordFile(records) };
}

describe("a real 2026-07-28 server (SDK v2) over stdio", () => {
  it("negotiates 2026-07-28 on the child it spawned: tools listed, a call answered with the envelope", async () => {
    const { harness, records } = v2StdioHarness(["echo"]);
    await harness.connection.start();
    expect(harness.transport().era()).toMatchObject({ kind: "stateless", protocolVersion: "2026-07-28" });
    expect(harness.connection.snapshot()).toMatchObject({ protocolEra: "stateless" });
    // One child for the whole negotiation: discovery did not restart the server.
    expect(harness.transports).toHaveLength(1);
    const names = harness.registry.listGroup(harness.connection.group).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["mcp__v2__echo", "mcp__v2__wait"]));
    const outcome = await executeToolCall(
      { name: "mcp__v2__echo", input: { text: "over stdio" }, callId: "call_echo_stdio" },
      harness.env,
    );
    expect(outcome).toMatchObject({ type: "observation", ok: true });
    expect(JSON.stringify(outcome)).toContain("over stdio");
    expect(records()).toContainEqual(
      expect.objectContaining({ event: "called", tool: "echo", protocolVersion: "2026-07-28" }),
    );
  });

  it("cancels a call with notifications/cancelled: the server's handler sees its abort", async () => {
    const { harness, records } = v2StdioHarness(["wait"]);
    await harness.connection.start();
    await cancelWhileWaiting(harness, records, "call_wait_stdio");
  });
});
