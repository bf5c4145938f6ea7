/** A tool call asks the server for progress only when someone listens to it. */
import { FakeTransport, fakeServer, ok, textContent } from "@agent/mcp-testing";
import type { McpTransport } from "@agent/mcp-transport";
import { executeToolCall } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { ALLOW_EXTERNAL, createFakeSetup } from "./harness.js";

/** Which `tools/call` requests reached the transport with a progress listener. */
function recordingProgress(transport: FakeTransport): { transport: McpTransport; progress: boolean[] } {
  const progress: boolean[] = [];
  const recording = new Proxy(transport, {
    get(target, key) {
      if (key === "request") {
        return (method: string, params: unknown, context: Parameters<McpTransport["request"]>[2]) => {
          if (method === "tools/call") {
            progress.push(!(context instanceof AbortSignal) && context.onProgress !== undefined);
          }
          return target.request(method, params, context);
        };
      }
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { transport: recording, progress };
}

function setup() {
  const fake = new FakeTransport(
    fakeServer({
      call: (_params, request) => {
        request.reportProgress(1, 2, "half");
        return ok({ content: [textContent("done")] });
      },
    }),
  );
  const recorded = recordingProgress(fake);
  const harness = createFakeSetup(
    {},
    { policy: ALLOW_EXTERNAL, connection: { connect: () => recorded.transport } },
  );
  return { ...harness, progress: recorded.progress };
}

describe("progress of a remote tool call", () => {
  it("is not asked for when the caller does not listen, and the call still succeeds", async () => {
    const { connection, env, progress } = setup();
    await connection.start();
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ type: "observation", ok: true });
    expect(progress).toEqual([false]);
    await connection.close();
  });

  it("is asked for and reaches the caller when it listens", async () => {
    const { connection, env, progress } = setup();
    await connection.start();
    const seen: number[] = [];
    const outcome = await executeToolCall(
      { name: "mcp__docs__search", input: { q: "x" } },
      { ...env, onProgress: (update) => seen.push(update.progress) },
    );
    expect(outcome).toMatchObject({ type: "observation", ok: true });
    expect(progress).toEqual([true]);
    expect(seen).toEqual([1]);
    await connection.close();
  });
});
