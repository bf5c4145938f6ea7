import type { AuditRecord } from "../state/index.js";

/**
 * The audit trail as the story of a run: one sentence per step a person follows (a prompt, a model
 * turn, a call decided, held, approved or finished, the run stopping, what the sandbox allowed or
 * refused), or `undefined` for plumbing (server handshakes, listings, each MCP request), which
 * `agent audit --verbose` shows. The text is raw: the caller makes it safe for the terminal.
 */
export function storyLine(record: AuditRecord): string | undefined {
  const tell = STORY[record.type];
  return tell === undefined ? undefined : tell(fieldsOf(record));
}

/** A record's fields, read as the text they stand for (a missing one reads "?"). */
interface Fields {
  text(key: string): string;
  number(key: string): number | undefined;
  has(key: string): boolean;
  raw(key: string): unknown;
}

function fieldsOf(record: AuditRecord): Fields {
  return {
    text: (key) => {
      const value = record[key];
      return typeof value === "string" || typeof value === "number" ? String(value) : "?";
    },
    number: (key) => (typeof record[key] === "number" ? (record[key] as number) : undefined),
    has: (key) => record[key] !== undefined,
    raw: (key) => record[key],
  };
}

const STORY: Readonly<Record<string, (event: Fields) => string>> = Object.freeze({
  run_started: (event) =>
    `prompt: run ${event.text("runId")} started on ${event.text("provider")} ${event.text("model")} (up to ${event.text("maxTurns")} turns)`,
  run_continued: (event) =>
    `prompt: a follow-up of ${event.text("promptChars")} characters, run ${event.text("runId")} goes on after turn ${event.text("turn")}`,
  model_request_finished: (event) => {
    const turn = `model turn ${event.text("turn")}`;
    const took = describeDuration(event.number("durationMs"));
    if (event.raw("ok") !== true) {
      const status = event.has("status") ? ` (HTTP ${event.text("status")})` : "";
      return `${turn} failed: ${event.text("code")}${status}, after ${took}`;
    }
    const calls = event.number("toolCalls") ?? 0;
    const asked = calls === 0 ? "answered" : `asked for ${calls} tool call${calls === 1 ? "" : "s"}`;
    return `${turn} ${asked} · ${event.text("inputTokens")} in, ${event.text("outputTokens")} out tokens · ${took}`;
  },
  tool_call_decided: (event) => {
    const call = `call ${event.text("toolName")} (${event.text("callId")})`;
    switch (event.raw("decision")) {
      case "allow":
        return `${call} allowed by ${event.has("via") ? event.text("via") : "policy"}`;
      case "deny":
        return `${call} denied${event.has("reason") ? `: ${event.text("reason")}` : ""}`;
      default: {
        const by =
          event.raw("reason") === "tainted_flow" ? " by the flow guard (the run read untrusted content)" : "";
        return `${call} held for approval${by}, request ${event.text("requestId")}`;
      }
    }
  },
  tool_call_resumed: (event) =>
    `call ${event.text("toolName")} (${event.text("callId")}) resumed where its stopped process left it (decided then, not asked again)`,
  mcp_task: (event) => {
    const task = `call ${event.text("toolName")} (${event.text("callId")}): task ${event.text("taskId")} on ${event.text("server")}`;
    switch (event.raw("step")) {
      case "created":
        return `${task} created, ${event.text("status")}`;
      case "resumed":
        return `${task} followed again`;
      case "cancel_sent":
        return `${task} given up: tasks/cancel sent${event.raw("ok") === true ? "" : " (not acknowledged)"}`;
      default:
        return `${task} ${event.text("status")}`;
    }
  },
  approval_granted: (event) =>
    `request ${event.text("requestId")} approved${event.has("decidedBy") ? ` by ${event.text("decidedBy")}` : ""} (${event.text("toolName")})`,
  approval_denied: (event) =>
    `request ${event.text("requestId")} denied${event.has("decidedBy") ? ` by ${event.text("decidedBy")}` : ""} (${event.text("toolName")})${event.has("reason") ? `: ${event.text("reason")}` : ""}`,
  approval_voided: (event) =>
    `request ${event.text("requestId")} voided: ${event.text("reason")} (${event.text("toolName")})`,
  tool_call_finished: (event) => {
    const call = `call ${event.text("toolName")} (${event.text("callId")})`;
    if (event.raw("code") === "waiting") return `${call} waits for its approval`;
    const took = describeDuration(event.number("durationMs"));
    return event.raw("ok") === true
      ? `${call} finished ok in ${took}`
      : `${call} failed: ${event.text("code")} after ${took}`;
  },
  local_path_refused: (event) =>
    `call ${event.text("toolName")} refused the path ${event.text("path")}: ${event.text("code")}`,
  run_tainted: (event) => {
    const source = event.raw("source") as { kind?: unknown; name?: unknown } | undefined;
    const name = typeof source?.name === "string" ? source.name : "?";
    return `run ${event.text("runId")} read untrusted content from ${name} at turn ${event.text("turn")}: its sinks are held from now on`;
  },
  run_waiting: (event) => {
    const ids = Array.isArray(event.raw("requestIds"))
      ? (event.raw("requestIds") as unknown[]).join(", ")
      : "?";
    return `run ${event.text("runId")} waits for approval: ${ids}`;
  },
  run_resumed: (event) => `run ${event.text("runId")} resumed after turn ${event.text("turn")}`,
  run_finished: (event) => {
    const code = event.has("code") ? ` (${event.text("code")})` : "";
    return `run ${event.text("runId")} stopped: ${event.text("status")}${code} after ${event.text("turns")} turns · ${event.text("inputTokens")} in, ${event.text("outputTokens")} out tokens`;
  },
  sandbox_connection: (event) =>
    `sandbox: ${event.text("subject")} ${event.raw("allowed") === true ? "allowed to connect to" : "refused a connection to"} ${event.text("host")}:${event.text("port")}`,
  sandbox_unavailable: (event) =>
    `sandbox unavailable for ${event.text("subject")}${event.raw("required") === true ? " (required: refused)" : " (ran unisolated)"}: ${event.text("reason")}`,
  mcp_initialize_failed: (event) =>
    `server ${event.text("server")} did not start: ${event.text("code")}: ${event.text("message")}`,
  mcp_server_failed: (event) =>
    `server ${event.text("server")} failed: ${event.text("code")}: ${event.text("message")}`,
  mcp_server_exited: (event) =>
    `server ${event.text("server")} exited: ${event.text("reason")}: ${event.text("message")}`,
  mcp_tools_changed: (event) => `server ${event.text("server")} changed its tools`,
  mcp_elicitation: (event) =>
    `server ${event.text("server")} asked the user a question: ${event.text("action")}`,
  mcp_sampling: (event) =>
    `server ${event.text("server")} asked the model for a completion: ${event.raw("ok") === true ? "answered" : "refused or failed"}`,
});

function describeDuration(durationMs: number | undefined): string {
  if (durationMs === undefined) return "?";
  return durationMs < 1000 ? `${Math.round(durationMs)} ms` : `${(durationMs / 1000).toFixed(1)} s`;
}
