import { MCP_ERROR_CODES, type McpRequestContext, type McpTransport } from "@agent/mcp-transport";
import {
  type EventSink,
  OBSERVATION_ERROR_CODES,
  type RegisteredTool,
  type ToolContext,
  type ToolFailure,
  toolFailure,
} from "@agent/tools";
import { emitTaskResumed, followTaskOf, resumedTaskId } from "./call-tasks.js";
import type { McpServerState } from "./connection-options.js";
import type { Dormancy } from "./dormancy.js";
import { emitRequestFinished, requestRecord } from "./instrumented-transport.js";
import type { McpSession } from "./mcp-session.js";
import { mcpToolName, type ServerToolAction, serverToolName } from "./names.js";
import { isRecord } from "./records.js";
import { type RemoteCallResult, type RemoteToolPort, responseFailure } from "./tool-mapping.js";

/** One request of a call and the local tool it is audited under. */
interface OutgoingRequest {
  method: string;
  params: Record<string, unknown>;
  toolName: string;
  /** For `tools/call`: the tool it calls, as the server lists it. */
  remoteName?: string;
  /** For `tools/call`: the local tool it was authorized as, checked against what is registered when it is sent. */
  before?: RegisteredTool | undefined;
  /** For a built-in tool's request: whether its arguments still match the server's catalog (after a re-listing). */
  stillApplies?: (() => boolean) | undefined;
}

/** What every call of one connection is sent with: the connection's fixed parts. */
export interface CallParts {
  server: string;
  events: EventSink;
  /** The connection's time limit of one call, if it has one. */
  callMs: number | undefined;
  /** The connection's idle close, if it has one: a call holds its clock and wakes it when dormant. */
  dormancy: Dormancy | undefined;
}

/**
 * The one thing calls ask their connection live, at the moment each is sent: its state, its current
 * session (the transport and what was negotiated on it), and the tool registered now for a remote
 * name (a listing that found a changed definition replaced it).
 */
export interface CallConnection {
  readonly state: McpServerState;
  readonly session: McpSession | undefined;
  currentTool(remoteName: string): RegisteredTool | undefined;
}

/**
 * The one way a connection's tools reach their server: the port {@link toLocalTool} takes. Each call
 * goes out with the call's cancellation, progress and time limit, reopens a dormant connection
 * first, or lists a stateless server's expired catalog again (`ttlMs`), then checks that what the
 * server now lists is still what was authorized; it keeps the idle
 * clock stopped while it runs, and is attributed to the call in the audit trail. Transport failures
 * come back as the observation's failure; nothing throws.
 */
export class ServerCalls implements RemoteToolPort {
  readonly #parts: CallParts;
  readonly #connection: CallConnection;
  /** A call resumed from its checkpoint follows its task again; it is never sent twice. */
  readonly resumesTasks = true;

  constructor(parts: CallParts, connection: CallConnection) {
    this.#parts = parts;
    this.#connection = connection;
  }

  /** Sends `tools/call` for `remoteName` on behalf of the call in `context`. */
  callTool(
    remoteName: string,
    args: unknown,
    context: ToolContext,
    authorized?: RegisteredTool,
  ): Promise<RemoteCallResult> {
    // What the call was authorized as; read now only for a caller that does not say (a library's own call).
    const before = authorized ?? this.#connection.currentTool(remoteName);
    // The registered tool's own name: the same text, without building it again for every call.
    const toolName = before?.name ?? mcpToolName(this.#parts.server, remoteName);
    const params = { name: remoteName, arguments: args };
    return this.#send({ method: "tools/call", params, toolName, remoteName, before }, context);
  }

  /**
   * Sends a built-in tool's request (`resources/read`, `prompts/get`) on behalf of the call in
   * `context`; `stillApplies` is asked again when the catalog was listed again before it is sent.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    action: ServerToolAction,
    context: ToolContext,
    stillApplies?: () => boolean,
  ): Promise<RemoteCallResult> {
    const toolName = serverToolName(this.#parts.server, action);
    return this.#send({ method, params, toolName, stillApplies }, context);
  }

  #send(request: OutgoingRequest, context: ToolContext): Promise<RemoteCallResult> {
    const relisting =
      this.#connection.state === "ready" ? this.#connection.session?.relistIfStale() : undefined;
    if (relisting) return this.#sendRelisted(relisting, request, context);
    return this.#sendAwakeOrNow(request, context);
  }

  /** A call that waited for its expired catalog to be listed again: it was authorized against the old one. */
  async #sendRelisted(
    relisting: Promise<void>,
    request: OutgoingRequest,
    context: ToolContext,
  ): Promise<RemoteCallResult> {
    await relisting;
    const stale = this.#stale(request, "its server's tool list expired (ttlMs) and was listed again");
    if (stale) return { ok: false, failure: stale };
    return this.#sendAwakeOrNow(request, context);
  }

  #sendAwakeOrNow(request: OutgoingRequest, context: ToolContext): Promise<RemoteCallResult> {
    const { dormancy } = this.#parts;
    // No idle close configured (the common case): nothing to wake and no clock to hold.
    if (!dormancy) return this.#sendNow(request, context);
    return this.#sendAwake(dormancy, request, context);
  }

  async #sendAwake(
    dormancy: Dormancy,
    request: OutgoingRequest,
    context: ToolContext,
  ): Promise<RemoteCallResult> {
    dormancy.begin();
    try {
      if (this.#connection.state === "dormant" || dormancy.waking) {
        const cancellation = context.cancellation ?? context.signal;
        if (await dormancy.wake(cancellation)) {
          const stale = this.#stale(request, `the connection to "${this.#parts.server}" was reopened`);
          if (stale) return { ok: false, failure: stale };
        } else if (cancellation.aborted) {
          const failure = toolFailure(
            OBSERVATION_ERROR_CODES.cancelled,
            "The call was cancelled while the server reconnected.",
          );
          return { ok: false, failure };
        }
      }
      return await this.#sendNow(request, context);
    } finally {
      dormancy.end();
    }
  }

  async #sendNow(request: OutgoingRequest, context: ToolContext): Promise<RemoteCallResult> {
    const { method, params, toolName } = request;
    const { server, events, callMs } = this.#parts;
    // The session of this moment: a reconnect that swaps in another leaves this call on this one.
    const { state, session } = this.#connection;
    if (state !== "ready" || !session) {
      const failure = toolFailure(
        OBSERVATION_ERROR_CODES.mcpUnavailable,
        `Server "${server}" is not connected (${state}).`,
      );
      return { ok: false, failure };
    }
    // The cancellation, not `signal`: reading that would create an AbortSignal for every call.
    const requestContext: McpRequestContext = { signal: context.cancellation ?? context.signal };
    // No listener, no progress token: the server then has no progress to send and the SDK none to track.
    if (context.progressListened !== false) {
      requestContext.onProgress = (progress) => context.reportProgress(progress);
    }
    if (callMs !== undefined) requestContext.timeoutMs = callMs;
    // A listing that finished while the call was being authorized (another call's re-list, a
    // list_changed) may have replaced its definition, or withdrawn what a built-in call names.
    const stale = this.#stale(request, "its server's catalog was listed again while it was authorized");
    if (stale) return { ok: false, failure: stale };
    if (request.remoteName !== undefined) {
      const refused = this.#followTask(requestContext, context, toolName, session.transport);
      if (refused) return { ok: false, failure: refused };
    }
    const started = performance.now();
    const response = await session.transport.request(method, params, requestContext);
    // The executor records the request in the call's outcome; a context that cannot gets its own record.
    if (!context.recordRequest?.(requestRecord(server, method, started, response))) {
      const attribution = { callId: context.callId, toolName };
      emitRequestFinished(events, server, attribution, method, started, response);
    }
    if (!response.ok) return { ok: false, failure: responseFailure(response.error) };
    if (
      request.remoteName !== undefined &&
      !session.features.structuredContent &&
      isRecord(response.result)
    ) {
      // The negotiated version has no structuredContent: the server's extra field is not passed on.
      const { structuredContent: _dropped, ...result } = response.result;
      return { ok: true, result };
    }
    return response;
  }

  /**
   * Lets a `tools/call` that becomes a task be followed (events, checkpoint) and, for a resumed
   * call, turns its checkpoint into the task to follow; a checkpoint that cannot be followed here is
   * refused (the call is not sent again).
   */
  #followTask(
    requestContext: McpRequestContext,
    context: ToolContext,
    toolName: string,
    transport: McpTransport,
  ): ToolFailure | undefined {
    // Only the stateless protocol has tasks: a handshake-era call costs nothing more.
    const stateless = transport.wireProtocol?.()?.era === "stateless";
    if (!stateless && context.resume === undefined) return undefined;
    const attribution = { server: this.#parts.server, toolName, events: this.#parts.events };
    if (!stateless) {
      return toolFailure(
        OBSERVATION_ERROR_CODES.mcpError,
        `Server "${this.#parts.server}" no longer speaks the 2026-07-28 protocol, so the call's task cannot be followed; it was not sent again.`,
        { code: MCP_ERROR_CODES.invalidParams },
      );
    }
    followTaskOf(requestContext, context, attribution);
    if (context.resume === undefined) return undefined;
    const resumed = resumedTaskId(this.#parts.server, context.resume);
    if (!resumed.ok) {
      return toolFailure(
        OBSERVATION_ERROR_CODES.mcpError,
        `The call cannot be resumed: ${resumed.reason}; it was not sent again.`,
        { code: MCP_ERROR_CODES.invalidParams },
      );
    }
    requestContext.resumeTaskId = resumed.taskId;
    emitTaskResumed(context, attribution, resumed.taskId);
    return undefined;
  }

  /**
   * Whether a call still applies after its server's tools were listed again (`when`: a dormant
   * connection reopened, an expired catalog): it was validated and authorized against the old definition.
   */
  #stale(request: OutgoingRequest, when: string): ToolFailure | undefined {
    const { remoteName, stillApplies } = request;
    if (remoteName === undefined) {
      if (!stillApplies || stillApplies()) return undefined;
      return toolFailure(
        OBSERVATION_ERROR_CODES.mcpUnavailable,
        `The server no longer lists what ${request.toolName} was called with, since ${when}; list again and call it again.`,
      );
    }
    if (this.#connection.currentTool(remoteName) === request.before) return undefined;
    return toolFailure(
      OBSERVATION_ERROR_CODES.mcpUnavailable,
      `The definition of ${request.toolName} changed when ${when}; call it again.`,
    );
  }
}
