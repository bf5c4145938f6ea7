import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  McpServerConnection,
  type McpServerConnectionOptions,
  type McpServerTimeouts,
} from "@agent/mcp-client";
import {
  assertNoProcessesAlive,
  type LoopbackHttpServer,
  type MisbehavingServerName,
  parseServerRecords,
  processGroupMembers,
  processTreeOf,
  readRecordFile,
  type ServerRecord,
  startLoopbackHttpServer,
  testServerCommand,
} from "@agent/mcp-testing/servers";
import {
  closeBoundAround,
  type McpTransport,
  type McpTransportError,
  negotiateEra,
} from "@agent/mcp-transport";
import {
  createStreamableHttpTransport,
  type StreamableHttpMcpTransport,
  type StreamableHttpTransportOptions,
} from "@agent/mcp-transport/http";
import { createSdkTransport } from "@agent/mcp-transport/sdk";
import {
  createStdioTransport,
  type StdioMcpTransport,
  StdioProcessTransport,
  type StdioTransportOptions,
} from "@agent/mcp-transport/stdio";
import { createPolicyGate, definePolicy, InMemoryApprovalStore, type PolicyConfig } from "@agent/policy";
import {
  type AgentEvent,
  createMemoryEventSink,
  type ExecutionEnvironment,
  type MemoryEventSink,
  ToolRegistry,
} from "@agent/tools";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { expect, onTestFinished } from "vitest";
import { loadFactor } from "../../../vitest.shared.js";

const require = createRequire(import.meta.url);

/** Entry point of the pinned server-everything (`node <it> stdio|streamableHttp`). */
export const EVERYTHING_ENTRY = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
/** Entry point of the pinned server-filesystem (`node <it> <allowed directory>`). */
export const FILESYSTEM_ENTRY = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");

/** Lifecycle bounds of the tests, shorter than the defaults; tests that probe a bound set their own. */
export const SHORT_TIMEOUTS: Partial<McpServerTimeouts> = {
  initializeMs: 10_000,
  listToolsMs: 10_000,
  closeMs: 2_000,
};

/** What every harness offers: the connection, the registry behind the gate, and the audit stream. */
export interface ClientHarness<T extends McpTransport> {
  connection: McpServerConnection;
  registry: ToolRegistry;
  events: MemoryEventSink;
  approvals: InMemoryApprovalStore;
  /** The executor's environment: the registry, the real policy gate, one run, the audit sink. */
  env: ExecutionEnvironment;
  /** Every transport the connection opened, oldest first. */
  transports: T[];
  /** The transport opened last. */
  transport(): T;
  /** Out-of-band transport problems (`protocol_noise`, `close_failed`), in order. */
  transportErrors: McpTransportError[];
}

/** Options of {@link createClientHarness}. */
export interface HarnessOptions {
  /** The server's name in `mcp__<server>__<tool>`. */
  name: string;
  /** Remote tool names the policy allows; every other tool of the server gets the default (`ask`). */
  allow?: readonly string[];
  /** Replaces the policy built from `allow`. */
  policy?: PolicyConfig;
  timeouts?: Partial<McpServerTimeouts>;
  /** The executor's timeout for each call (default 10 s). */
  callTimeoutMs?: number;
  connection?: Partial<Omit<McpServerConnectionOptions, "connect" | "registry" | "events">>;
}

/** A connection (not yet started) whose transports `open` creates, behind the real policy gate. */
export function createClientHarness<
  T extends McpTransport & { onError(listener: (error: McpTransportError) => void): () => void },
>(open: () => T, options: HarnessOptions): ClientHarness<T> {
  const registry = new ToolRegistry();
  const events = createMemoryEventSink();
  const approvals = new InMemoryApprovalStore();
  const transports: T[] = [];
  const transportErrors: McpTransportError[] = [];
  const connection = new McpServerConnection({
    name: options.name,
    registry,
    events,
    timeouts: { ...SHORT_TIMEOUTS, ...options.timeouts },
    ...options.connection,
    connect: () => {
      const transport = open();
      transport.onError((error) => transportErrors.push(error));
      transports.push(transport);
      return transport;
    },
  });
  const policy = definePolicy(
    options.policy ?? {
      rules: (options.allow ?? []).map((remote) => ({
        tool: `mcp__${options.name}__${remote}`,
        decision: "allow" as const,
      })),
    },
  );
  const gate = createPolicyGate({ policy, approvals, events });
  const env: ExecutionEnvironment = {
    registry,
    gate,
    runId: "run_integration",
    cwd: process.cwd(),
    events,
    timeoutMs: options.callTimeoutMs ?? 10_000,
  };
  return {
    connection,
    registry,
    events,
    approvals,
    env,
    transports,
    transportErrors,
    transport: () => {
      const last = transports.at(-1);
      if (!last) throw new Error("The connection has not opened a transport yet; call connection.start().");
      return last;
    },
  };
}

/** A harness over stdio, plus the server's stderr records and its processes. */
export interface StdioHarness extends ClientHarness<StdioMcpTransport> {
  /** Every JSON-RPC message the client wrote to a server's stdin, when `recordWire` was set. */
  wire: JSONRPCMessage[];
  /** The diagnostic records (`started`, `cancelled`, `grandchild`, ...) of the current server's stderr. */
  records(): ServerRecord[];
  /** The live processes of every server this harness started: each process tree and process group. */
  processes(): number[];
}

/**
 * A connection to a stdio server, behind the real policy gate. When the test ends it closes the
 * connection and fails the test unless every process it started (servers and their children) is gone.
 */
export function stdioHarness(
  server: StdioTransportOptions | (() => StdioTransportOptions),
  options: HarnessOptions & { recordWire?: boolean; afterClose?: () => void },
): StdioHarness {
  const wire: JSONRPCMessage[] = [];
  const harness = createClientHarness(() => {
    const parameters = { closeTimeoutMs: 1_000, ...(typeof server === "function" ? server() : server) };
    return options.recordWire
      ? createRecordedStdioTransport(parameters, wire)
      : createStdioTransport(parameters);
  }, options);
  const processes = (): number[] => {
    const pids = new Set<number>();
    for (const transport of harness.transports) {
      const pid = transport.pid();
      if (pid === undefined) continue;
      for (const member of processTreeOf(pid)) pids.add(member);
      // Orphans stay in the server's group (it leads its own); the tree no longer reaches them.
      for (const member of processGroupMembers(pid)) pids.add(member);
    }
    return [...pids];
  };
  onTestFinished(async () => {
    const tracked = processes();
    await harness.connection.close();
    await within(Promise.all(harness.transports.map((transport) => transport.close())), 3_000);
    try {
      await reapOrFail([...new Set([...tracked, ...processes()])]);
    } finally {
      options.afterClose?.();
    }
    expectBoundedAudit(harness.events.events);
  });
  return {
    ...harness,
    wire,
    records: () => parseServerRecords(harness.transport().stderrTail()),
    processes,
  };
}

/**
 * What `createStdioTransport` builds (the same process transport and SDK adapter, without credential
 * redaction), with every message written to the server's stdin kept in `wire`: cancellations are sent
 * by the SDK's protocol layer, below anything a wrapper of `McpTransport` could see.
 */
function createRecordedStdioTransport(
  parameters: StdioTransportOptions,
  wire: JSONRPCMessage[],
): StdioMcpTransport {
  const processTransport = new StdioProcessTransport(parameters);
  const send = processTransport.send.bind(processTransport);
  processTransport.send = (message) => {
    wire.push(message);
    return send(message);
  };
  const closeTimeoutMs = closeBoundAround(processTransport.closeTimeoutMs);
  const transport = createSdkTransport(processTransport, {
    describeClose: () => processTransport.closeReason,
    closeTimeoutMs,
  });
  return {
    ...transport,
    // The era negotiated as createStdioTransport does it (its silent-probe limit included).
    ...negotiateEra(transport, { silentProbeMs: 5_000 }),
    closeTimeoutMs,
    pid: () => processTransport.pid,
    stderrTail: () => processTransport.stderrTail(),
    diagnostics: () => processTransport.diagnostics(),
  };
}

/**
 * A harness on one of the misbehaving servers of @agent/mcp-testing. Its records come from the
 * server's record file, written synchronously: stderr may lose its last lines when a server is killed.
 */
export function misbehavingHarness(
  server: MisbehavingServerName,
  options: Partial<HarnessOptions> & { transport?: Partial<StdioTransportOptions> } = {},
): StdioHarness {
  const { transport, ...rest } = options;
  const directory = mkdtempSync(join(tmpdir(), "mcp-client-integration-"));
  const recordFile = join(directory, "records.jsonl");
  const harness = stdioHarness(
    {
      ...testServerCommand(server),
      ...transport,
      env: { MCP_TESTING_RECORD_FILE: recordFile, ...transport?.env },
    },
    { name: "misbehaving", ...rest, afterClose: () => rmSync(directory, { recursive: true, force: true }) },
  );
  return { ...harness, records: () => readRecordFile(recordFile) };
}

/** The built-in tools through which server-everything's resources and prompts are reached. */
export const EVERYTHING_BUILTIN_TOOLS: readonly string[] = [
  "mcp_server__everything__list_resources",
  "mcp_server__everything__read_resource",
  "mcp_server__everything__get_prompt",
];

/** server-everything's tools that it registers only for clients declaring roots, sampling or elicitation (none by default). */
export const EVERYTHING_CAPABILITY_GATED_TOOLS: readonly string[] = [
  "get-roots-list",
  "trigger-sampling-request",
  "trigger-sampling-request-async",
  "trigger-elicitation-request",
  "trigger-elicitation-request-async",
  "trigger-url-elicitation",
];

/** server-everything over stdio, behind a policy that allows `allow`. */
export function everythingStdio(
  options: Partial<HarnessOptions> & { recordWire?: boolean } = {},
): StdioHarness {
  return stdioHarness(
    { command: process.execPath, args: [EVERYTHING_ENTRY, "stdio"] },
    { name: "everything", ...options },
  );
}

/** server-filesystem over stdio, allowed to serve `directory` only. */
export function filesystemStdio(directory: string, options: Partial<HarnessOptions> = {}): StdioHarness {
  return stdioHarness(
    { command: process.execPath, args: [FILESYSTEM_ENTRY, directory] },
    { name: "filesystem", ...options },
  );
}

/** One HTTP request the client made, as the wire carried it. */
export interface WireRecord {
  method: string;
  body: unknown;
}

/** A harness over Streamable HTTP, with every HTTP request the client made. */
export interface HttpHarness extends ClientHarness<StreamableHttpMcpTransport> {
  server: EverythingHttpServer;
  wire: WireRecord[];
}

/**
 * server-everything over Streamable HTTP on loopback. Without `server` it starts its own, killed and
 * checked gone when the test ends; a shared `server` is left to whoever started it.
 */
export async function everythingHttp(
  options: Partial<HarnessOptions> & {
    server?: EverythingHttpServer;
    transport?: Partial<StreamableHttpTransportOptions>;
  } = {},
): Promise<HttpHarness> {
  const { server: shared, transport, ...rest } = options;
  const server = shared ?? (await startEverythingHttp());
  const wire: WireRecord[] = [];
  const harness = createClientHarness(
    () =>
      createStreamableHttpTransport({
        url: server.url,
        closeTimeoutMs: 1_000,
        ...transport,
        fetch: (input, init) => {
          const body = typeof init?.body === "string" ? (JSON.parse(init.body) as unknown) : undefined;
          wire.push({ method: init?.method ?? "GET", body });
          return fetch(input, init);
        },
      }),
    { name: "everything", ...rest },
  );
  onTestFinished(async () => {
    await harness.connection.close();
    await within(Promise.all(harness.transports.map((opened) => opened.close())), 3_000);
    if (!shared) await stopEverythingHttp(server);
    expectBoundedAudit(harness.events.events);
  });
  return { ...harness, server, wire };
}

/** A server-everything child process in Streamable HTTP mode on a loopback port. */
export type EverythingHttpServer = LoopbackHttpServer;

/** Starts server-everything over Streamable HTTP on 127.0.0.1 (a free port), in its own process group. */
export function startEverythingHttp(): Promise<EverythingHttpServer> {
  return startLoopbackHttpServer(EVERYTHING_ENTRY, ["streamableHttp"]);
}

/** Kills an HTTP server started by {@link startEverythingHttp} and fails unless all its processes are gone. */
export async function stopEverythingHttp(server: EverythingHttpServer): Promise<void> {
  const tracked = server.processes();
  await server.kill();
  await reapOrFail(tracked);
}

/** A fresh temporary directory (its real path), removed when the current test ends. */
export function temporaryDirectory(): string {
  const directory = realpathSync(mkdtempSync(join(tmpdir(), "mcp-client-integration-")));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/**
 * Polls until `probe` returns a truthy value, or fails after `timeoutMs`: by default 5 s, what a
 * child server takes idle, times how busy the machine is when the wait begins.
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false,
  timeoutMs = Math.round(5_000 * loadFactor()),
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await delay(10);
  }
}

/**
 * Fails (naming the survivors) unless every one of `pids` is gone within 3 s, and kills the survivors
 * first, so that a failing test does not leave processes behind for the next one.
 */
export async function reapOrFail(pids: readonly number[]): Promise<void> {
  try {
    await assertNoProcessesAlive(pids, 3_000);
  } catch (error) {
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    throw error;
  }
}

/** Waits for `work`, but no longer than `ms`. */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The events of `events` whose `type` is one of `types`, reduced to their types, in order. */
export function typesOf(events: readonly AgentEvent[], ...types: AgentEvent["type"][]): string[] {
  return events.filter((event) => types.includes(event.type)).map((event) => event.type);
}

/** Audit events stay small: large payloads (images, huge answers) never appear in them as content. */
export function expectBoundedAudit(events: readonly AgentEvent[]): void {
  for (const event of events) expect(JSON.stringify(event).length).toBeLessThan(4_096);
}
