import { FakeTransport, fakeServer, initializeResult, ok, textContent, tool } from "@agent/mcp-testing";
import { executeToolCall } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { ALLOW_EXTERNAL, createFakeSetup } from "./harness.js";

const RICH_TOOL = tool({
  name: "search",
  title: "Search",
  annotations: { readOnlyHint: true },
  outputSchema: { type: "object", properties: { hits: { type: "integer" } }, required: ["hits"] },
});

function serverSpeaking(version: string) {
  return {
    ...fakeServer({ protocolVersion: version, tools: [RICH_TOOL] }),
    "tools/call": () => ok({ content: [textContent("3 hits")], structuredContent: { hits: "many" } }),
  };
}

describe("protocol 2024-11-05", () => {
  it("is accepted, and what that version does not define is ignored", async () => {
    const { connection, env, registry } = createFakeSetup(serverSpeaking("2024-11-05"), {
      policy: ALLOW_EXTERNAL,
    });
    await connection.start();
    expect(connection.protocolVersion).toBe("2024-11-05");
    const search = registry.get("mcp__docs__search");
    // No annotations, no title: those came with 2025-03-26 and 2025-06-18.
    expect(search?.annotations).toBeUndefined();
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    // No outputSchema to check against and no structuredContent passed on: the bad value never reaches the model.
    expect(outcome).toMatchObject({
      type: "observation",
      ok: true,
      output: { content: [textContent("3 hits")] },
    });
    expect(JSON.stringify(outcome)).not.toContain("many");
    await connection.close();
  });

  it("keeps annotations for 2025-03-26 but not output schemas", async () => {
    const { connection, env, registry } = createFakeSetup(serverSpeaking("2025-03-26"), {
      policy: ALLOW_EXTERNAL,
    });
    await connection.start();
    expect(registry.get("mcp__docs__search")?.annotations).toEqual({ readOnlyHint: true });
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: true });
    await connection.close();
  });

  it("enforces output schemas from 2025-06-18 on", async () => {
    const { connection, env } = createFakeSetup(serverSpeaking("2025-06-18"), { policy: ALLOW_EXTERNAL });
    await connection.start();
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "mcp_error" });
    await connection.close();
  });

  it("still refuses versions outside the list before sending anything else", async () => {
    const transport = new FakeTransport({ initialize: () => ok(initializeResult("2024-10-07")) });
    const { connection } = createFakeSetup({}, { connection: { connect: () => transport } });
    await expect(connection.start()).rejects.toMatchObject({ code: "unsupported_protocol_version" });
    expect(transport.methods).toEqual(["initialize"]);
  });
});
