// PUBLIC VOCABULARY. Audit files and the scripts that read them depend on these event names and
// fields: add events and optional fields freely, but rename or remove one only on purpose, with a
// changeset. No event may carry a credential or a raw large payload (see audit-bounds.ts).
import type { FlowSource } from "./flow.js";
import type { ToolEffect } from "./tool.js";

/**
 * The version of this vocabulary. 2: a governed call is two records, its decision
 * (`tool_call_decided`, with what `tool_call_started` held) and its outcome (`tool_call_finished`,
 * with its MCP request as `request`); version 1 trails also hold `tool_call_started` and the call's
 * `mcp_request_finished`, and readers accept both (the mapping is in this package's README).
 */
export const AGENT_EVENT_VOCABULARY_VERSION = 2;

/** A call's MCP request, as its outcome record holds it (what `mcp_request_finished` held). */
export interface CallRequestRecord {
  server: string;
  method: string;
  durationMs: number;
  ok: boolean;
  /** The JSON-RPC or transport error code when not ok. */
  code?: number;
}

/** What `tool_call_started` held; on the record that opens a call's trail (its decision, or its refusal). */
interface CallStartFields {
  effect?: ToolEffect;
  inputBytes?: number;
}

/** Fields every event carries. */
interface EventBase {
  /** When it happened, ISO 8601. */
  at: string;
}

interface CallFields {
  runId: string;
  callId: string;
  toolName: string;
}

interface ApprovalFields {
  runId: string;
  requestId: string;
  toolName: string;
  actionDigest: string;
}

/** Every event of the audit stream, one discriminated union (by `type`). */
export type AgentEvent = EventBase &
  // Vocabulary version 1 only: version 2 folds it into the call's first record (see CallStartFields).
  (
    | ({ type: "tool_call_started" } & CallStartFields & CallFields)
    | ({
        type: "tool_call_decided";
        decision: "allow" | "deny" | "ask";
        via?: "policy" | "approval";
        reason?: string;
        requestId?: string;
        isolation?: string;
        /** A held call of a tainted run: the untrusted sources it was judged with (`reason` `tainted_flow` when the guard held it). */
        taint?: FlowSource[];
      } & CallStartFields &
        CallFields)
    // Opens the trail of a call resumed after its process stopped (it was decided then; the gate
    // is not asked again): see `ToolCall.resume`. Its outcome is a `tool_call_finished` as usual.
    | ({ type: "tool_call_resumed" } & CallStartFields & CallFields)
    | ({
        type: "tool_call_finished";
        ok: boolean;
        /** The observation's error code, or "waiting" for a held call. */
        code?: string;
        durationMs: number;
        /** The call's MCP request, when it made one that ended before the call did. */
        request?: CallRequestRecord;
        /** `request.server`, at the top level as on every MCP event, for filters. */
        server?: string;
      } & CallStartFields &
        CallFields)
    // No summary or input here: inputs may hold credentials. The digest binds the exact input; the
    // operator sees it from the approval store (private state), not from the audit trail.
    | ({ type: "approval_requested"; effect: ToolEffect } & ApprovalFields)
    // `decidedBy`: who decided, where the approval store records it (the OS user of the CLI).
    | ({ type: "approval_granted"; decidedBy?: string } & ApprovalFields)
    // `reason`: why the operator denied it, as they wrote it (at most DENIAL_REASON_MAX_CHARS).
    | ({ type: "approval_denied"; decidedBy?: string; reason?: string } & ApprovalFields)
    | ({ type: "approval_consumed" } & ApprovalFields)
    // A pending or granted request voided (its tool changed or went away, or it was digested under an
    // older digest version: reason `digest_version_changed`): it never applies again.
    | ({ type: "approval_voided"; reason: string; decidedBy?: string } & ApprovalFields)
    // A local tool refused a path: outside the workspace, protected (config, state), or swapped while opened.
    | ({ type: "local_path_refused"; code: string; path: string } & CallFields)
    | {
        type: "mcp_initialized";
        server: string;
        protocolVersion: string;
        durationMs: number;
        serverName?: string;
      }
    | { type: "mcp_initialize_failed"; server: string; code: string; message: string; durationMs: number }
    | {
        type: "mcp_tools_listed";
        server: string;
        count: number;
        rejected: number;
        pages: number;
        durationMs: number;
      }
    | { type: "mcp_tool_rejected"; server: string; remoteName: string; reason: string }
    | { type: "mcp_tools_changed"; server: string; added: string[]; removed: string[]; changed: string[] }
    | { type: "mcp_server_failed"; server: string; code: string; message: string }
    | {
        type: "mcp_request_finished";
        server: string;
        method: string;
        durationMs: number;
        ok: boolean;
        /** The JSON-RPC or transport error code when not ok. */
        code?: number;
        callId?: string;
        toolName?: string;
      }
    | { type: "mcp_server_exited"; server: string; reason: string; message: string }
    | { type: "mcp_reconnecting"; server: string; attempt: number; delayMs: number }
    | { type: "mcp_closed"; server: string; durationMs: number }
    | { type: "mcp_close_failed"; server: string; message: string; durationMs: number }
    // Agent runs (@agent/loop). Never a prompt, a completion or a tool result: sizes and counts only.
    | { type: "run_started"; runId: string; provider: string; model: string; maxTurns: number }
    | {
        type: "model_request_finished";
        runId: string;
        provider: string;
        model: string;
        /** The run's turn this request was for, from 1. */
        turn: number;
        durationMs: number;
        ok: boolean;
        /** Why the model stopped, when ok. */
        stopReason?: string;
        /** The model failure's code, when not ok. */
        code?: string;
        /** The HTTP status of a failure, where there was one. */
        status?: number;
        inputTokens: number;
        outputTokens: number;
        toolCalls: number;
      }
    | { type: "run_waiting"; runId: string; turn: number; requestIds: string[] }
    // The run took in untrusted content: from now on its sinks are held (the flow guard). Once per source.
    | { type: "run_tainted"; runId: string; turn: number; source: FlowSource }
    | { type: "run_resumed"; runId: string; turn: number; toolSetChanged: boolean }
    // A finished run given a new user message (a follow-up): `turn` is where it goes on; the prompt's
    // size only, never its text. `maxTurns` is the run's new turn limit (turns so far plus this prompt's).
    | { type: "run_continued"; runId: string; turn: number; promptChars: number; maxTurns: number }
    | {
        type: "run_finished";
        runId: string;
        /** The stop reason. */
        status: "completed" | "waiting" | "max_turns" | "failed" | "cancelled";
        turns: number;
        inputTokens: number;
        outputTokens: number;
        /** The error's code, when failed. */
        code?: string;
      }
    | { type: "mcp_idle_closed"; server: string; idleMs: number }
    | {
        type: "mcp_resources_listed";
        server: string;
        resources: number;
        templates: number;
        rejected: number;
        durationMs: number;
      }
    | { type: "mcp_prompts_listed"; server: string; count: number; rejected: number; durationMs: number }
    // Field names only, never the values the user typed.
    | {
        type: "mcp_elicitation";
        server: string;
        action: "accept" | "decline" | "cancel" | "none";
        outcome: "answered" | "invalid_request" | "invalid_answer" | "failed";
        fields: string[];
        sensitive: boolean;
        durationMs: number;
      }
    // One step of the task a call's `tools/call` became (tasks extension): `created` (with the
    // server's clamped poll interval), `status` (each change, the last one final), `resumed` (a new
    // process follows it again), `cancel_sent` (the client gave up on it). The task id is bounded
    // printable ASCII; the server's status message is never recorded.
    | ({
        type: "mcp_task";
        server: string;
        taskId: string;
        step: "created" | "status" | "resumed" | "cancel_sent";
        status?: "working" | "input_required" | "completed" | "failed" | "cancelled";
        pollIntervalMs?: number;
        ok?: boolean;
      } & CallFields)
    // No prompt or completion text: the policy decision and approval carry the call's own events.
    | {
        type: "mcp_sampling";
        server: string;
        ok: boolean;
        code?: number;
        maxTokens?: number;
        durationMs: number;
      }
    // A process that should run sandboxed cannot be: refused when `required`, otherwise run unisolated.
    // `subject` is `mcp:<server>` or a tool name such as `run_command`.
    | { type: "sandbox_unavailable"; subject: string; required: boolean; reason: string }
    // The network allow-list's proxy let a sandboxed process connect to `host:port`, or refused it.
    | { type: "sandbox_connection"; subject: string; host: string; port: number; allowed: boolean }
    // A package-runner server's packages (npx, uvx) installed outside the sandbox, into the harness's
    // cache: each pinned by exact version and integrity (null where the installer records none).
    | {
        type: "package_install";
        server: string;
        installer: "npm" | "uv";
        refresh: boolean;
        ok: boolean;
        code?: string;
        packages: { name: string; version: string; integrity: string | null }[];
        durationMs: number;
      }
  );

/** The `type` of an {@link AgentEvent}. */
export type AgentEventType = AgentEvent["type"];

/** The event of one `type`. */
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;

/** An event before its timestamp is set; see {@link emitEvent}. */
export type AgentEventInput = AgentEvent extends infer E
  ? E extends AgentEvent
    ? Omit<E, "at">
    : never
  : never;

/**
 * Receives audit events, in order. A sink must not throw: an audit failure is reported through the
 * sink's own channel, never into the tool call that caused it.
 */
export interface EventSink {
  emit(event: AgentEvent): void;
  /**
   * Emits a decision and resolves once it is written as durably as `emit` would have written it
   * before returning. The sink may write the decisions emitted close together (those of concurrent
   * calls) in one write. Whoever runs what a decision admits waits for this first; see
   * {@link emitDecisionEvent}. A sink without it gets `emit`. Rejecting says the decision could not
   * be recorded: `executeToolCall` then refuses the call it would have admitted (`audit_failed`).
   */
  emitDecision?(event: AgentEvent): Promise<void>;
  /**
   * The clock {@link emitEvent} stamps this sink's events with; without one each event's time is
   * formatted anew. A sink wrapping another should pass the inner one's on.
   */
  readonly clock?: EventClock;
}

/** The current time in ISO 8601, as events carry it in `at`. */
export type EventClock = () => string;

/**
 * A clock that formats each millisecond once: a call emits several events within one, and
 * `toISOString` costs more than the rest of an event (~0.6 µs on a loaded 2-core machine).
 */
export function createEventClock(): EventClock {
  let lastMs = Number.NaN;
  let lastIso = "";
  return () => {
    const ms = Date.now();
    if (ms !== lastMs) {
      lastIso = new Date(ms).toISOString();
      lastMs = ms;
    }
    return lastIso;
  };
}

/** A sink that drops everything, for callers that do not audit. */
export const NULL_EVENT_SINK: EventSink = Object.freeze({ emit() {} });

/** An in-memory sink, for tests and for callers that inspect events afterwards. */
export interface MemoryEventSink extends EventSink {
  readonly events: AgentEvent[];
  /** The events of one type, in order. */
  ofType<T extends AgentEventType>(type: T): AgentEventOf<T>[];
}

/** Creates a {@link MemoryEventSink}. */
export function createMemoryEventSink(): MemoryEventSink {
  const events: AgentEvent[] = [];
  return {
    events,
    clock: createEventClock(),
    emit(event) {
      events.push(event);
    },
    ofType<T extends AgentEventType>(type: T) {
      return events.filter((event): event is AgentEventOf<T> => event.type === type);
    },
  };
}

/** Sends the same events to several sinks, in order. */
export function fanOutEvents(...sinks: EventSink[]): EventSink {
  const fanOut: EventSink = {
    clock: createEventClock(),
    emit(event) {
      for (const sink of sinks) sink.emit(event);
    },
  };
  if (!sinks.some((sink) => sink.emitDecision)) return fanOut;
  return {
    ...fanOut,
    emitDecision(event) {
      const writes: Promise<void>[] = [];
      for (const sink of sinks) {
        if (sink.emitDecision) writes.push(sink.emitDecision(event));
        else sink.emit(event);
      }
      return writes.length === 1 ? (writes[0] as Promise<void>) : Promise.all(writes).then(noop);
    },
  };
}

function noop(): void {}

/**
 * A sink that hands `transform(event)` to `sink` (e.g. to redact each record), keeping the inner
 * sink's clock and its {@link EventSink.emitDecision}, so decisions stay batched and durable.
 */
export function transformEvents(sink: EventSink, transform: (event: AgentEvent) => AgentEvent): EventSink {
  const wrapped: EventSink = {
    ...(sink.clock ? { clock: sink.clock } : {}),
    emit: (event) => sink.emit(transform(event)),
  };
  const { emitDecision } = sink;
  if (emitDecision) wrapped.emitDecision = (event) => emitDecision.call(sink, transform(event));
  return wrapped;
}

/** Stamps an event with `now` (by default the current time, from the sink's clock) and emits it. */
export function emitEvent(sink: EventSink, event: AgentEventInput, now?: Date): void {
  if (sink === NULL_EVENT_SINK) return;
  sink.emit(stamped(sink, event, now));
}

/**
 * Stamps and emits a decision (see {@link EventSink.emitDecision}). Resolves once it is written,
 * before which nothing it admits may run: at once (already settled) for a sink without
 * `emitDecision`, whose `emit` wrote it before returning. Rejects when it could not be written.
 */
export function emitDecisionEvent(sink: EventSink, event: AgentEventInput): Promise<void> {
  if (sink === NULL_EVENT_SINK) return WRITTEN;
  try {
    return deliverDecision(sink, stamped(sink, event, undefined)) ?? WRITTEN;
  } catch (error) {
    return Promise.reject(error);
  }
}

const WRITTEN: Promise<void> = Promise.resolve();

/**
 * {@link emitEvent} for an event its caller built for this emit alone and never touches again: it is
 * stamped in place instead of copied (the executor's two records a call; a copy costs about 0.3 µs
 * and an allocation each, a share of a governed call's audit that grows on a loaded machine).
 */
export function emitOwnedEvent(sink: EventSink, event: AgentEventInput): void {
  if (sink === NULL_EVENT_SINK) return;
  sink.emit(stampedInPlace(sink, event));
}

/**
 * {@link emitDecisionEvent} for an event its caller built for it alone, stamped in place; the
 * executor's internal fast path: undefined when the decision is already written (no promise to await).
 */
export function emitOwnedDecisionEvent(sink: EventSink, event: AgentEventInput): Promise<void> | undefined {
  if (sink === NULL_EVENT_SINK) return undefined;
  return deliverDecision(sink, stampedInPlace(sink, event));
}

function deliverDecision(sink: EventSink, record: AgentEvent): Promise<void> | undefined {
  if (sink.emitDecision) return sink.emitDecision(record);
  sink.emit(record);
  return undefined;
}

function timestamp(sink: EventSink): string {
  return sink.clock ? sink.clock() : new Date().toISOString();
}

function stamped(sink: EventSink, event: AgentEventInput, now: Date | undefined): AgentEvent {
  const at = now !== undefined ? now.toISOString() : timestamp(sink);
  // Object.assign rather than a spread: events come in many shapes, and V8's spread is slow for
  // that many (about 1.5 µs an event against 0.1 µs); event keys are plain names, so both copy alike.
  const record = Object.assign({}, event) as AgentEvent;
  record.at = at;
  return record;
}

/** Sets `at` last, as {@link stamped} does, so the record's fields keep their order. */
function stampedInPlace(sink: EventSink, event: AgentEventInput): AgentEvent {
  const record = event as AgentEvent;
  record.at = timestamp(sink);
  return record;
}
