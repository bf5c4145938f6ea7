/**
 * The Mcp-Param-* header budget through the whole client, over real Streamable HTTP on loopback
 * against the stateless test server, whose `route` tool mirrors `region` as `Mcp-Param-Region`: a
 * call whose mirrored argument would overflow the header block is refused before it is sent, with an
 * error that names the parameter, and the connection stays usable.
 */
import { McpServerConnection } from "@agent/mcp-client";
import { startLoopbackHttpServer, statelessServerPath } from "@agent/mcp-testing/servers";
import { createStreamableHttpTransport } from "@agent/mcp-transport/http";
import { createPolicyGate, definePolicy, InMemoryApprovalStore } from "@agent/policy";
import { createMemoryEventSink, executeToolCall, ToolRegistry } from "@agent/tools";
import { describe, expect, it, onTestFinished } from "vitest";

describe("a stateless server's x-mcp-header parameter over Streamable HTTP", () => {
  it("refuses a call whose Mcp-Param-* headers would exceed 8 KiB, naming the parameter; the next call goes out", async () => {
    const server = await startLoopbackHttpServer(statelessServerPath(), []);
    const registry = new ToolRegistry();
    const events = createMemoryEventSink();
    const connection = new McpServerConnection({
      name: "modern",
      connect: () => createStreamableHttpTransport({ url: server.url }),
      registry,
      events,
    });
    onTestFinished(async () => {
      await connection.close();
      await server.kill();
    });
    const gate = createPolicyGate({
      policy: definePolicy({ defaults: { external: "allow" } }),
      approvals: new InMemoryApprovalStore(),
      events,
    });
    const env = { registry, gate, events, runId: "run_budget", cwd: "/work", timeoutMs: 20_000 };
    await connection.start();
    const route = (region: string) =>
      executeToolCall({ name: "mcp__modern__route", input: { region, query: "q" } }, env);

    const refused = await route("r".repeat(9_000));
    expect(refused).toMatchObject({ type: "observation", ok: false, error: "mcp_error" });
    expect(JSON.stringify(refused)).toContain("-32602");
    expect(JSON.stringify(refused)).toContain("shorten the values of its header parameters (region)");

    const routed = await route("eu");
    expect(routed).toMatchObject({ type: "observation", ok: true });
    // The server answers with the Mcp-* headers it received: the short value went out as one.
    expect(JSON.stringify(routed)).toContain("mcp-param-region");
  });
});
