import { McpServerConnection, type McpServerConnectionOptions, type RemoteToolPort } from "@agent/mcp-client";
import { type FakeHandler, FakeTransport } from "@agent/mcp-testing";
import type { McpTransport } from "@agent/mcp-transport";
import { createPolicyGate, definePolicy, InMemoryApprovalStore, type PolicyConfig } from "@agent/policy";
import {
  createMemoryEventSink,
  type EventSink,
  type ExecutionEnvironment,
  type RegisteredTool,
  type ToolContext,
  ToolRegistry,
} from "@agent/tools";

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

/** A context for a call made straight through a tool, outside the executor. */
export function toolContext(): ToolContext {
  return {
    signal: new AbortController().signal,
    callId: "c1",
    runId: "r1",
    cwd: "/",
    reportProgress: () => {},
  } as unknown as ToolContext;
}

/** Runs `tool` as the executor does once it authorized it: validated, then executed (it passes itself to its port). */
export function runAuthorized(tool: RegisteredTool | undefined, input: unknown): Promise<unknown> {
  const prepared = tool?.prepare(input);
  if (!prepared?.ok)
    throw new Error(`the test's input does not validate for ${tool?.name ?? "a missing tool"}`);
  return prepared.execute(toolContext());
}

/** A connect function that opens a new FakeTransport on `handlers()` each time, and the transports it opened. */
export function connectEachTime(handlers: () => Record<string, FakeHandler>) {
  const transports: FakeTransport[] = [];
  const connect = (): FakeTransport => {
    const transport = new FakeTransport(handlers());
    transports.push(transport);
    return transport;
  };
  return { transports, connect };
}

/**
 * A connection "docs" whose every (re)connect opens a FakeTransport with `handlers()`, to a registry of
 * its own, its events in memory; `options` add to (or replace) those.
 */
export function connectionEachTime(
  handlers: () => Record<string, FakeHandler>,
  options: Partial<McpServerConnectionOptions> = {},
) {
  const events = createMemoryEventSink();
  const { transports, connect } = connectEachTime(handlers);
  const connection = new McpServerConnection({
    name: "docs",
    registry: new ToolRegistry(),
    events,
    connect,
    ...options,
  });
  return { connection, events, transports };
}

/** `transport` without the McpTransport contract's optional `onRequest`: it can take no server request. */
export function withoutServerRequests(transport: McpTransport): McpTransport {
  return {
    request: (method, params, context) => transport.request(method, params, context),
    notify: (method, params) => transport.notify(method, params),
    onNotification: (listener) => transport.onNotification(listener),
    onClose: (listener) => transport.onClose(listener),
    close: () => transport.close(),
  };
}

/**
 * Events in memory, and a sink that runs `act` once, the moment the `nth` answer to `method` is in
 * (its `mcp_request_finished`), before the code that asked resumes with it: a race made exact.
 */
export function actingOnAnswer(method: string, act: () => void, nth = 1) {
  const events = createMemoryEventSink();
  let seen = 0;
  const sink: EventSink = {
    emit(event) {
      events.emit(event);
      if (event.type === "mcp_request_finished" && event.method === method && ++seen === nth) act();
    },
  };
  return { events, sink };
}
