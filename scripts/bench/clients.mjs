// The clients under comparison, each over its own bench-server process (identical servers, so no
// client waits behind another's traffic):
//   raw       the SDK's Client + StdioClientTransport (the baseline)
//   sdkOnOurs the SDK's Client + our StdioProcessTransport (for the breakdown)
//   transport our createStdioTransport (our process transport under the SDK's Protocol)
//   gate      executeToolCall -> policy gate (allow rule) -> McpServerConnection -> our transport,
//             with every event appended to a JSONL audit file (default flush "decisions": a decision is
//             written before the call it admits runs, with what was queued before it, the decisions of
//             concurrent calls in one write; the rest once per turn)
//   gateBatched  the same, with the audit file in `flush: "batched"` mode (one write per event-loop turn)
//   gateSilent   the full gate with no events (NULL_EVENT_SINK), in the allocation suite
import { setMaxListeners } from "node:events";
import { join } from "node:path";
import { BENCH_SERVER_PATH, REPO_ROOT } from "./modules.mjs";
import { onServerCpu } from "./placement.mjs";

/** The server name (`mcp__<server>__echo`) the gate client registers its tools under. */
export const GATE_SERVER = "bench";

const ECHO_ARGUMENTS = { message: "hello" };
// Never aborted: our transport takes a signal for every request, the SDK's callTool none. One signal
// shared by 100 concurrent requests is a normal use, so Node's "possible leak" warning is off for it.
const NEVER = new AbortController().signal;
setMaxListeners(0, NEVER);

function serverParameters(serverEnv) {
  return onServerCpu({ command: process.execPath, args: [BENCH_SERVER_PATH], env: serverEnv });
}

/**
 * Starts a server and connects the SDK's own Client to it, over the SDK's StdioClientTransport or,
 * with `overOurProcessTransport`, over our StdioProcessTransport (own process group, bounded
 * buffers): that variant separates the cost of our process handling from that of our adapter.
 */
export async function openRawClient(modules, cleanup, serverEnv, { overOurProcessTransport = false } = {}) {
  const client = new modules.SdkClient({ name: "bench-raw", version: "1.0.0" });
  const transport = overOurProcessTransport
    ? new modules.StdioProcessTransport(serverParameters(serverEnv))
    : new modules.SdkStdioClientTransport({ ...serverParameters(serverEnv), stderr: "ignore" });
  const connected = client.connect(transport);
  // connect() spawns synchronously before its first await, so the pid is known here.
  const close = cleanup.add(() => client.close(), transport.pid ?? undefined);
  await connected;
  return { client, close };
}

/** Starts a server and connects our transport to it, handshake included. */
export async function openTransport(modules, cleanup, serverEnv) {
  const transport = modules.createStdioTransport(serverParameters(serverEnv));
  const close = cleanup.add(() => transport.close(), transport.pid());
  await modules.initializeServer(transport, { signal: NEVER });
  return { transport, close };
}

/**
 * Creates an McpServerConnection over our transport (not yet started). `close` closes the connection
 * and then every transport it opened, so their processes are known to be gone.
 */
export function createConnection(modules, cleanup, { name, serverEnv, registry, events }) {
  const transportClosers = [];
  const connection = new modules.McpServerConnection({
    name,
    registry,
    events,
    connect: () => {
      const transport = modules.createStdioTransport(serverParameters(serverEnv));
      transportClosers.push(cleanup.add(() => transport.close(), transport.pid()));
      return transport;
    },
  });
  const closeConnection = cleanup.add(() => connection.close());
  const close = async () => {
    await closeConnection();
    for (const closeTransport of transportClosers) await closeTransport();
  };
  return { connection, close };
}

/** The audit sink of a gate client: a JSONL file in a temp folder removed at cleanup. */
export function openAuditSink(modules, cleanup, options = {}) {
  const path = join(cleanup.tempFolder("agent-bench-"), "audit.jsonl");
  const sink = modules.createJsonlEventSink(path, options);
  cleanup.add(() => sink.close());
  return sink;
}

/** The execution environment of the gate client: an allow rule for the bench server's tools. */
export function createGateEnvironment(modules, { registry, events }) {
  const gate = modules.createPolicyGate({
    policy: modules.definePolicy({ rules: [{ tool: `mcp__${GATE_SERVER}__*`, decision: "allow" }] }),
    approvals: new modules.InMemoryApprovalStore(),
    events,
  });
  return { registry, gate, runId: "bench", cwd: REPO_ROOT, events };
}

/** A gate client over its own server: registry, connection and gate environment, auditing to `events`. */
export async function openGate(modules, cleanup, events) {
  const registry = new modules.ToolRegistry();
  const managed = createConnection(modules, cleanup, { name: GATE_SERVER, serverEnv: {}, registry, events });
  await managed.connection.start();
  return { environment: createGateEnvironment(modules, { registry, events }), close: managed.close };
}

/**
 * One echo call per client given, by the same name: SDK Clients `raw` and `sdkOnOurs`, our bare
 * `transport`, and `gates` (gate environments by client name); each throws unless the call succeeded.
 */
export function echoCallers(modules, { raw, sdkOnOurs, transport, gates = {} }) {
  const echoCall = { name: `mcp__${GATE_SERVER}__echo`, input: ECHO_ARGUMENTS };
  const sdkCaller = (client) => async () => {
    const result = await client.callTool({ name: "echo", arguments: ECHO_ARGUMENTS });
    if (result.isError || result.content?.[0]?.type !== "text") throw unexpected("Client.callTool", result);
  };
  const callers = {};
  if (raw) callers.raw = sdkCaller(raw);
  if (sdkOnOurs) callers.sdkOnOurs = sdkCaller(sdkOnOurs);
  if (transport) {
    callers.transport = async () => {
      const response = await transport.request(
        "tools/call",
        { name: "echo", arguments: ECHO_ARGUMENTS },
        NEVER,
      );
      if (!response.ok) throw unexpected("transport request", response);
    };
  }
  for (const [name, environment] of Object.entries(gates)) {
    callers[name] = async () => {
      const outcome = await modules.executeToolCall(echoCall, environment);
      if (outcome.type !== "observation" || !outcome.ok) throw unexpected("executeToolCall", outcome);
    };
  }
  return callers;
}

function unexpected(what, value) {
  return new Error(`${what} did not succeed: ${JSON.stringify(value).slice(0, 500)}`);
}
