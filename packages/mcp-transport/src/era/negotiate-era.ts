import { UNPARSABLE_RESULT_MESSAGE } from "../sdk/unparsable-result.js";
import {
  MCP_ERROR_CODES,
  type McpError,
  type McpRequestContext,
  type McpRequestHandler,
  type McpResponse,
  type McpTransport,
  type McpWireProtocol,
  mcpFailure,
  toRequestContext,
} from "../transport.js";
import {
  type ClientEnvelope,
  isRecord,
  META_KEYS,
  MODERN_PROTOCOL_VERSION,
  withEnvelope,
} from "./envelope.js";
import { requestWithInput } from "./multi-round-request.js";
import { followTask } from "./task-polling.js";
import { isTaskResult, isValidTaskId, readCreatedTask, withTasksExtension } from "./task-result.js";
import type { ToolHeaderIndex } from "./tool-header-index.js";

/** Which protocol era a connection speaks, once its first `initialize` was answered. */
export type ProtocolEra =
  | { kind: "undecided" }
  | { kind: "handshake" }
  | { kind: "stateless"; protocolVersion: string; envelope: ClientEnvelope };

/**
 * What a transport that negotiates the protocol era per server adds: which era it chose. Its
 * `onRequest`, there exactly when the inner transport has one, registers a handler for the server's
 * requests of `method` and for its input requests of that method (MRTR).
 */
export interface EraAware {
  era(): ProtocolEra;
  wireProtocol(): McpWireProtocol | undefined;
}

/** Options of {@link negotiateEra}. */
export interface NegotiateEraOptions {
  /** Learns each stateless `tools/list` page, for the `Mcp-Param-*` headers of later calls (HTTP). */
  toolHeaders?: ToolHeaderIndex;
  /**
   * Why a stateless request must not be sent at all (HTTP: a call whose `Mcp-Param-*` headers would
   * exceed their budget); it then resolves with that error and nothing reaches the server.
   */
  refuse?: (method: string, params: unknown) => McpError | undefined;
  /**
   * stdio: how long the `server/discover` probe waits before the silence counts as an old server's
   * answer (the spec's stdio rule: an old server need not answer an unknown method at all), then
   * the handshake is tried with whatever time the caller's `initialize` has left. Capped at half the
   * caller's `timeoutMs` when it sets one. Unset (HTTP, where every answer has a status): a silent
   * probe fails the `initialize` it stands for.
   */
  silentProbeMs?: number;
}

const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** The `data` of an unsupported-version error, whether it came as a JSON-RPC error or in an HTTP 400's body. */
function unsupportedVersionData(error: McpError): unknown {
  if (error.code === UNSUPPORTED_PROTOCOL_VERSION) return error.data;
  const rpcError = isRecord(error.data) ? (error.data.rpcError as McpError | undefined) : undefined;
  return rpcError?.code === UNSUPPORTED_PROTOCOL_VERSION ? rpcError.data : undefined;
}

/** Statuses with which an HTTP server refuses a method or a request it does not know (an older server's answer). */
const REFUSAL_STATUSES: ReadonlySet<number> = new Set([400, 404, 405, 406, 415]);

/** Whether a failed probe was the server's own answer (a JSON-RPC error, or an HTTP refusal of the request). */
function isServerAnswer(error: McpError): boolean {
  // What the SDK failed to parse locally (e.g. an authorization server's malformed token response).
  if (error.message === UNPARSABLE_RESULT_MESSAGE) return false;
  if (error.code !== MCP_ERROR_CODES.connectionClosed) {
    return error.code !== MCP_ERROR_CODES.cancelled && error.code !== MCP_ERROR_CODES.timeout;
  }
  const status = isRecord(error.data) ? error.data.httpStatus : undefined;
  return typeof status === "number" && REFUSAL_STATUSES.has(status);
}

function offersModern(data: unknown): boolean {
  return isRecord(data) && Array.isArray(data.supported) && data.supported.includes(MODERN_PROTOCOL_VERSION);
}

/** The probe's own context: the caller's, with the silent-probe limit when there is one. */
function probeContextOf(caller: McpRequestContext, silentProbeMs: number | undefined): McpRequestContext {
  if (silentProbeMs === undefined) return caller;
  const limit =
    caller.timeoutMs === undefined
      ? silentProbeMs
      : Math.min(silentProbeMs, Math.floor(caller.timeoutMs / 2));
  return { ...caller, timeoutMs: Math.max(1, limit) };
}

/** Whether the probe ended by its own time limit, not by the caller's cancellation: nothing was answered. */
function isSilence(probe: McpResponse, caller: McpRequestContext): boolean {
  return !probe.ok && probe.error.code === MCP_ERROR_CODES.timeout && !caller.signal.aborted;
}

/** The caller's context with what is left of its time limit after `elapsedMs` (none set: none). */
function remainingOf(caller: McpRequestContext, elapsedMs: number): McpRequestContext {
  if (caller.timeoutMs === undefined) return caller;
  return { ...caller, timeoutMs: Math.max(1, Math.floor(caller.timeoutMs - elapsedMs)) };
}

/**
 * Makes `inner` speak either era behind the same port. The client above always opens with
 * `initialize`; this first probes with `server/discover` (2026-07-28). A server that offers
 * 2026-07-28 gets the stateless protocol: no handshake, the `_meta` envelope on every request, and
 * the client is handed an `initialize` result built from the discovery (its own requested version,
 * the server's capabilities and info), so nothing above the transport learns the era. Any other
 * answer (an error, an old server's 400, no 2026-07-28 among `supportedVersions`) falls back to the
 * handshake, byte for byte as before. On the stateless protocol, a result that asks for input
 * (`input_required`) is answered through the handlers the client registered with `onRequest`, the
 * ones a handshake-era server's own requests reach, and the request retried (see `requestWithInput`).
 */
export function negotiateEra<T extends McpTransport>(
  inner: T,
  options: NegotiateEraOptions = {},
): T & EraAware {
  let era: ProtocolEra = { kind: "undecided" };
  const handlers = new Map<string, McpRequestHandler>();

  async function statelessRequest(
    method: string,
    params: unknown,
    context: McpRequestContext | AbortSignal,
    envelope: ClientEnvelope,
  ): Promise<McpResponse> {
    const refused = options.refuse?.(method, params);
    if (refused) return { ok: false, error: refused };
    if (method === "tools/call") return callTool(params, toRequestContext(context), envelope);
    const response = await requestWithInput(
      params,
      toRequestContext(context),
      handlers,
      (round, roundContext) => inner.request(method, withEnvelope(round, envelope), roundContext),
    );
    if (method === "tools/list" && response.ok) options.toolHeaders?.record(response.result);
    return response;
  }

  /** A `tools/call`, followed to its end when the server answers it with a task (or resumed on one). */
  async function callTool(
    params: unknown,
    caller: McpRequestContext,
    envelope: ClientEnvelope,
  ): Promise<McpResponse> {
    const deadline = caller.timeoutMs === undefined ? undefined : performance.now() + caller.timeoutMs;
    const following = {
      send: (method: string, taskParams: Record<string, unknown>, context: McpRequestContext) =>
        inner.request(method, withEnvelope(taskParams, envelope), context),
      handlers,
      caller,
      deadline,
    };
    if (caller.resumeTaskId !== undefined) {
      if (!isValidTaskId(caller.resumeTaskId)) {
        return mcpFailure(MCP_ERROR_CODES.invalidParams, "The task to resume has an invalid id.");
      }
      return followTask(caller.resumeTaskId, undefined, following);
    }
    const response = await requestWithInput(params, caller, handlers, (round, roundContext) =>
      inner.request("tools/call", withEnvelope(round, envelope), roundContext),
    );
    if (!response.ok || !isTaskResult(response.result)) return response;
    const created = readCreatedTask(response.result);
    if (!created.ok) return created;
    return followTask(created.value.taskId, created.value, following);
  }

  async function initialize(params: unknown, context: McpRequestContext | AbortSignal): Promise<McpResponse> {
    const record = isRecord(params) ? params : {};
    // This transport follows tasks itself (see `callTool`), so it is what offers the extension.
    const envelope: ClientEnvelope = {
      clientInfo: record.clientInfo,
      capabilities: withTasksExtension(record.capabilities),
    };
    const caller = toRequestContext(context);
    const started = performance.now();
    const probeContext = probeContextOf(caller, options.silentProbeMs);
    let probe = await inner.request("server/discover", withEnvelope({}, envelope), probeContext);
    // A server that rejects the version (-32022) but lists 2026-07-28 among those it supports is
    // asked once more: the spec's corrective continuation, which is not a retry of an outage.
    if (!probe.ok && offersModern(unsupportedVersionData(probe.error))) {
      probe = await inner.request("server/discover", withEnvelope({}, envelope), probeContext);
    }
    if (probeContext !== caller && isSilence(probe, caller)) {
      era = { kind: "handshake" };
      return inner.request("initialize", params, remainingOf(caller, performance.now() - started));
    }
    const offered = probe.ok && isRecord(probe.result) ? probe.result : undefined;
    const versions = Array.isArray(offered?.supportedVersions) ? offered.supportedVersions : [];
    // No answer at all (the network, a login that failed, a server error) says nothing of the era:
    // that outcome is the connection's, not a reason to try again with the handshake.
    if (!probe.ok && !isServerAnswer(probe.error)) return probe;
    if (!offered || !versions.includes(MODERN_PROTOCOL_VERSION)) {
      era = { kind: "handshake" };
      return inner.request("initialize", params, context);
    }
    era = { kind: "stateless", protocolVersion: MODERN_PROTOCOL_VERSION, envelope };
    const meta = isRecord(offered._meta) ? offered._meta : {};
    const serverInfo = meta[META_KEYS.serverInfo] ??
      offered.serverInfo ?? { name: "unknown", version: "unknown" };
    return {
      ok: true,
      result: {
        protocolVersion: record.protocolVersion,
        capabilities: isRecord(offered.capabilities) ? offered.capabilities : {},
        serverInfo,
        ...(typeof offered.instructions === "string" ? { instructions: offered.instructions } : {}),
      },
    };
  }

  // The port's members are delegated, not only spread: a transport that is a class instance keeps
  // them on its prototype, where a spread does not reach.
  const { onError, closeTimeoutMs, onRequest } = inner;
  return {
    ...inner,
    onNotification: (listener) => inner.onNotification(listener),
    onClose: (listener) => inner.onClose(listener),
    close: () => inner.close(),
    ...(onError ? { onError: (listener) => onError.call(inner, listener) } : {}),
    // Only over an inner transport that takes server requests: a client asks `onRequest` whether to
    // offer roots, elicitation and sampling, and over the handshake each would otherwise be -32601.
    ...(onRequest
      ? {
          onRequest(method: string, handler: McpRequestHandler) {
            handlers.set(method, handler);
            const removeInner = onRequest.call(inner, method, handler);
            return () => {
              if (handlers.get(method) === handler) handlers.delete(method);
              removeInner();
            };
          },
        }
      : {}),
    ...(closeTimeoutMs === undefined ? {} : { closeTimeoutMs }),
    era: () => era,
    wireProtocol: () =>
      era.kind === "undecided"
        ? undefined
        : era.kind === "handshake"
          ? { era: "handshake" }
          : { era: "stateless", protocolVersion: era.protocolVersion },
    request(method, params, context) {
      if (method === "initialize" && era.kind === "undecided") return initialize(params, context);
      if (era.kind !== "stateless") {
        // Sending the call again would run it twice: only the stateless protocol has tasks to follow.
        if (method === "tools/call" && toRequestContext(context).resumeTaskId !== undefined) {
          return Promise.resolve(
            mcpFailure(
              MCP_ERROR_CODES.invalidParams,
              "The server no longer speaks the 2026-07-28 protocol, so its task cannot be followed; the call was not sent again.",
            ),
          );
        }
        return inner.request(method, params, context);
      }
      return statelessRequest(method, params, context, era.envelope);
    },
    notify(method, params) {
      if (era.kind !== "stateless") return inner.notify(method, params);
      // The stateless protocol has no handshake to complete.
      if (method === "notifications/initialized") return Promise.resolve({ ok: true });
      return inner.notify(method, withEnvelope(params, era.envelope));
    },
  };
}
