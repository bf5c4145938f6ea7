/**
 * The whole client against a server that speaks only the stateless 2026-07-28 protocol, over real
 * Streamable HTTP on loopback: the era is chosen by discovery, an x-mcp-header parameter reaches the
 * server as an encoded Mcp-Param-* header, an invalid annotation rejects its tool alone, and a
 * multi-round-trip call asks the operator and echoes the server's requestState unchanged.
 */
import { McpServerConnection } from "@agent/mcp-client";
import {
  type LoopbackHttpServer,
  startLoopbackHttpServer,
  statelessServerPath,
} from "@agent/mcp-testing/servers";
import { createStreamableHttpTransport } from "@agent/mcp-transport/http";
import { createPolicyGate, definePolicy, InMemoryApprovalStore } from "@agent/policy";
import { createMemoryEventSink, executeToolCall, type SuccessObservation, ToolRegistry } from "@agent/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("a stateless 2026-07-28 server over Streamable HTTP", () => {
  let server: LoopbackHttpServer | undefined;
  beforeAll(async () => {
    server = await startLoopbackHttpServer(statelessServerPath(), []);
  });
  afterAll(async () => {
    await server?.kill();
  });

  function connect(answers: string[]) {
    if (!server) throw new Error("The server did not start.");
    const { url } = server;
    const registry = new ToolRegistry();
    const events = createMemoryEventSink();
    const connection = new McpServerConnection({
      name: "modern",
      connect: () => createStreamableHttpTransport({ url }),
      registry,
      events,
      features: {
        elicitation: async (request) => {
          answers.push(request.message);
          return { action: "accept", content: { confirmed: true } };
        },
      },
    });
    const gate = createPolicyGate({
      policy: definePolicy({ defaults: { external: "allow" } }),
      approvals: new InMemoryApprovalStore(),
      events,
    });
    const env = { registry, gate, events, runId: "run_modern", cwd: "/work", timeoutMs: 20_000 };
    return { connection, registry, env };
  }

  const textOf = (outcome: unknown): unknown =>
    JSON.parse(
      ((outcome as SuccessObservation).output as { content: { text: string }[] }).content[0]?.text ?? "",
    );

  it("is discovered as stateless, keeps the valid tools and rejects the invalid annotation visibly", async () => {
    const { connection, registry } = connect([]);
    await connection.start();
    const snapshot = connection.snapshot();
    expect(snapshot).toMatchObject({ protocolVersion: "2026-07-28", protocolEra: "stateless" });
    expect(registry.listGroup(connection.group).map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["mcp__modern__route", "mcp__modern__confirm"]),
    );
    expect(registry.get("mcp__modern__broken")).toBeUndefined();
    expect(snapshot.rejected).toEqual([
      { remoteName: "broken", reason: expect.stringMatching(/^invalid_tool_header: /) },
    ]);
    await connection.close();
  });

  it("sends an annotated parameter as its Mcp-Param-* header, base64 where the value needs it", async () => {
    const { connection, env } = connect([]);
    await connection.start();
    const plain = await executeToolCall(
      { name: "mcp__modern__route", input: { region: "eu-west1", query: "q" } },
      env,
    );
    expect(textOf(plain)).toEqual({
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "route",
      "mcp-param-region": "eu-west1",
    });
    const accented = await executeToolCall({ name: "mcp__modern__route", input: { region: "Zürich " } }, env);
    expect(textOf(accented)).toMatchObject({
      "mcp-param-region": `=?base64?${Buffer.from("Zürich ", "utf8").toString("base64")}?=`,
    });
    await connection.close();
  });

  it("asks the operator inside a call and retries with the answer and the requestState as it came", async () => {
    const answers: string[] = [];
    const { connection, env } = connect(answers);
    await connection.start();
    const outcome = await executeToolCall({ name: "mcp__modern__confirm", input: {} }, env);
    expect(answers).toEqual(["Proceed with the deployment?"]);
    expect(textOf(outcome)).toEqual({
      answer: { action: "accept", content: { confirmed: true } },
      stateEchoed: true,
    });
    await connection.close();
  });
});
