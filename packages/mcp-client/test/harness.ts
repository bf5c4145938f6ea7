import { McpServerConnection, type McpServerConnectionOptions, type RemoteToolPort } from "@agent/mcp-client";
import { type FakeHandler, FakeTransport } from "@agent/mcp-testing";
import { createPolicyGate, definePolicy, InMemoryApprovalStore, type PolicyConfig } from "@agent/policy";
import { createMemoryEventSink, type ExecutionEnvironment, ToolRegistry } from "@agent/tools";

/** Options of {@link connectFake}. */
export interface FakeSetup {
  registry?: ToolRegistry;
  policy?: PolicyConfig;
  connection?: Partial<McpServerConnectionOptions>;
}

/** A server "docs" on a FakeTransport, connected to a registry behind the real policy gate. */
export function createFakeSetup(handlers: Record<string, FakeHandler>, setup: FakeSetup = {}) {
  const transport = new FakeTransport(handlers);
  const registry = setup.registry ?? new ToolRegistry();
  const events = createMemoryEventSink();
  const approvals = new InMemoryApprovalStore();
  const connection = new McpServerConnection({
    name: "docs",
    connect: () => transport,
    registry,
    events,
    ...setup.connection,
  });
  const gate = createPolicyGate({ policy: definePolicy(setup.policy ?? {}), approvals, events });
  const env: ExecutionEnvironment = {
    registry,
    gate,
    runId: "run_1",
    cwd: "/work",
    events,
    timeoutMs: 1_000,
  };
  return { transport, registry, events, approvals, connection, env };
}

/** A policy that allows every external tool, for tests about what happens after the gate. */
export const ALLOW_EXTERNAL: PolicyConfig = { defaults: { external: "allow" } };

/** A server port for tools that are only mapped, never called for real: every call answers no content. */
export const EMPTY_ANSWERS: RemoteToolPort = {
  callTool: async () => ({ ok: true, result: { content: [] } }),
};
