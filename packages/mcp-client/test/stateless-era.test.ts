/**
 * The client over a 2026-07-28 server, with no HTTP: a FakeTransport speaking the stateless shape
 * (server/discover, input_required) behind the real era negotiation. Multi-round-trip input goes
 * through the same gated paths as a server's own requests; an invalid x-mcp-header rejects its tool
 * alone; listings say which protocol the server speaks.
 */
import type { McpClientFeatures } from "@agent/mcp-client";
import {
  type FakeHandler,
  type FakeToolSpec,
  fakeServer,
  inputRequired,
  inputResponsesOf,
  ok,
  statelessFakeServer,
  textContent,
} from "@agent/mcp-testing";
import { type McpTransport, negotiateEra } from "@agent/mcp-transport";
import { executeToolCall } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { ALLOW_EXTERNAL, createFakeSetup } from "./harness.js";

const CONFIRM = {
  method: "elicitation/create",
  params: {
    message: "Deploy to production?",
    requestedSchema: { type: "object", properties: { confirmed: { type: "boolean" } } },
  },
};

/** A `tools/call` that asks once for `inputRequests` (with `state`), then completes with what it was answered. */
function askingOnce(
  inputRequests: Record<string, { method: string; params?: unknown }>,
  state?: string,
): FakeHandler {
  return (params) => {
    const answers = inputResponsesOf(params);
    if (!answers) return ok(inputRequired(inputRequests, state));
    return ok({ resultType: "complete", content: [textContent(JSON.stringify(answers))] });
  };
}

function statelessSetup(
  call: FakeHandler,
  features: McpClientFeatures = {},
  tools?: (FakeToolSpec | string)[],
) {
  let stateless: McpTransport | undefined;
  const setup = createFakeSetup(statelessFakeServer({ call, ...(tools ? { tools } : {}) }), {
    policy: ALLOW_EXTERNAL,
    // The connection opens the fake through the real era negotiation, as an HTTP transport would.
    connection: { features, connect: () => stateless ?? setup.transport },
  });
  stateless = negotiateEra(setup.transport);
  return setup;
}

describe("a stateless (2026-07-28) server", () => {
  it("is listed with its era and the version on the wire, beside a handshake server", async () => {
    const { connection, events } = statelessSetup(askingOnce({}));
    await connection.start();
    expect(connection.snapshot()).toMatchObject({ protocolVersion: "2026-07-28", protocolEra: "stateless" });
    expect(connection.protocolVersion).toBe("2026-07-28");
    expect(events.ofType("mcp_initialized")).toEqual([
      expect.objectContaining({ server: "docs", protocolVersion: "2026-07-28" }),
    ]);
    await connection.close();
    const old = createFakeSetup(fakeServer({ protocolVersion: "2025-11-25" }));
    await old.connection.start();
    expect(old.connection.snapshot()).toMatchObject({
      protocolVersion: "2025-11-25",
      protocolEra: "handshake",
    });
    await old.connection.close();
  });

  it("takes an elicitation asked inside a call to the operator, and sends back what the operator answered", async () => {
    const asked: string[] = [];
    const { connection, env, transport, events } = statelessSetup(
      askingOnce({ confirm: CONFIRM }, "opaque-1"),
      {
        elicitation: async (request) => {
          asked.push(request.message);
          return { action: "decline" };
        },
      },
    );
    await connection.start();
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ type: "observation", ok: true });
    expect(asked).toEqual(["Deploy to production?"]);
    const rounds = transport.requestsFor("tools/call");
    expect(rounds.map((round) => inputResponsesOf(round.params))).toEqual([
      undefined,
      { confirm: { action: "decline" } },
    ]);
    expect(rounds[1]?.params).toMatchObject({ requestState: "opaque-1" });
    expect(events.ofType("mcp_elicitation")).toEqual([
      expect.objectContaining({
        server: "docs",
        action: "decline",
        outcome: "answered",
        fields: ["confirmed"],
      }),
    ]);
    await connection.close();
  });

  it("never accepts an elicitation by itself: with no operator, the call fails and nothing is sent back", async () => {
    const { connection, env, transport } = statelessSetup(askingOnce({ confirm: CONFIRM }, "opaque-2"));
    await connection.start();
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ type: "observation", ok: false, error: "mcp_error" });
    expect(JSON.stringify(outcome)).toContain("-32601");
    expect(transport.requestsFor("tools/call")).toHaveLength(1);
    await connection.close();
  });

  it("answers a roots request with the workspace roots, and a sampling request through the sampling handler", async () => {
    const sampled: unknown[] = [];
    const { connection, env, transport } = statelessSetup(
      askingOnce({
        roots: { method: "roots/list" },
        summary: {
          method: "sampling/createMessage",
          params: { messages: [{ role: "user", content: { type: "text", text: "Sum up" } }], maxTokens: 50 },
        },
      }),
      {
        roots: [{ uri: "file:///work/repo", name: "repo" }],
        sampling: {
          maxTokens: 100,
          handler: async (request) => {
            sampled.push(request.messages);
            return { ok: true, text: "A summary", model: "held-model", stopReason: undefined };
          },
        },
      },
    );
    await connection.start();
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ type: "observation", ok: true });
    expect(sampled).toEqual([[{ role: "user", text: "Sum up" }]]);
    expect(inputResponsesOf(transport.requestsFor("tools/call")[1]?.params)).toEqual({
      roots: { roots: [{ uri: "file:///work/repo", name: "repo" }] },
      summary: { role: "assistant", content: { type: "text", text: "A summary" }, model: "held-model" },
    });
    await connection.close();
  });
});

describe("x-mcp-header annotations", () => {
  const valid = {
    name: "route",
    inputSchema: {
      type: "object",
      properties: { region: { type: "string", "x-mcp-header": "Region" }, q: { type: "string" } },
      required: ["region"],
    },
  };
  const invalid = {
    name: "broken",
    inputSchema: {
      type: "object",
      properties: { score: { type: "number", "x-mcp-header": "Score" } },
    },
  };

  it("exclude a tool whose annotation is invalid, visibly, and keep the server's other tools", async () => {
    const { connection, registry, events } = statelessSetup(askingOnce({}), {}, [valid, invalid, "search"]);
    await connection.start();
    expect(registry.list().map((tool) => tool.name)).toEqual(["mcp__docs__route", "mcp__docs__search"]);
    const rejected = connection.snapshot().rejected;
    expect(rejected).toEqual([
      { remoteName: "broken", reason: expect.stringMatching(/^invalid_tool_header: .*"score".*not number/) },
    ]);
    expect(events.ofType("mcp_tool_rejected")).toEqual([
      expect.objectContaining({ server: "docs", remoteName: "broken", reason: rejected[0]?.reason }),
    ]);
    await connection.close();
  });

  it("are a wire contract, not something the model is told: the parameters leave them out", async () => {
    const { connection, registry } = statelessSetup(askingOnce({}), {}, [valid]);
    await connection.start();
    const parameters = JSON.stringify(registry.get("mcp__docs__route")?.parameters);
    expect(parameters).toContain("region");
    expect(parameters).not.toContain("x-mcp-header");
    await connection.close();
  });
});
