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
