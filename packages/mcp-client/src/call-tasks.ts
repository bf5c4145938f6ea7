/**
 * A remote call's task (tasks extension, 2026-07-28) as the rest of the harness sees it: each step
 * is an `mcp_task` audit event, its creation is checkpointed with the call (so a run saved while the
 * task works can follow it again from another process), and a resumed call is turned back into the
 * task id the transport follows. The checkpoint's shape is saved in runs: change it only on purpose.
 */
import { isValidTaskId, type McpRequestContext, type McpTaskEvent } from "@agent/mcp-transport";
import { type EventSink, emitEvent, type JsonValue, type ToolContext } from "@agent/tools";
import { isRecord } from "./records.js";

/** What a call checkpoints once its `tools/call` became a task. */
export type McpTaskCheckpoint = { mcpTask: { server: string; taskId: string } };

/** The checkpoint of the task `taskId` on `server`. */
export function taskCheckpoint(server: string, taskId: string): McpTaskCheckpoint {
  return { mcpTask: { server, taskId } };
}

/**
 * The task id a resumed call follows: the one its checkpoint names, for this server. Anything else
 * (another server's task, a checkpoint of another kind, an id the transport would refuse) is why not.
 */
export function resumedTaskId(
  server: string,
  resume: JsonValue,
): { ok: true; taskId: string } | { ok: false; reason: string } {
  const task = isRecord(resume) && isRecord(resume.mcpTask) ? resume.mcpTask : undefined;
  if (!task || !isValidTaskId(task.taskId)) {
    return { ok: false, reason: "its checkpoint names no task of this server" };
  }
  if (task.server !== server)
    return { ok: false, reason: `its task belongs to server "${String(task.server)}"` };
  return { ok: true, taskId: task.taskId };
}

/** The call's identity on its task events. */
export interface TaskAttribution {
  server: string;
  toolName: string;
  events: EventSink;
}

/**
 * Makes `requestContext` report the call's task: an event per step, and the checkpoint (awaited by
 * the transport before it polls) when the task is created.
 */
export function followTaskOf(
  requestContext: McpRequestContext,
  context: ToolContext,
  attribution: TaskAttribution,
): void {
  const { server, toolName, events } = attribution;
  const ids = { runId: context.runId, callId: context.callId, toolName, server };
  requestContext.onTask = (event: McpTaskEvent) => {
    emitEvent(events, taskEvent(ids, event));
    if (event.kind === "created") return context.checkpoint?.(taskCheckpoint(server, event.taskId));
    return undefined;
  };
}

/** Records that a resumed call follows its task again. */
export function emitTaskResumed(context: ToolContext, attribution: TaskAttribution, taskId: string): void {
  const { server, toolName, events } = attribution;
  emitEvent(events, {
    type: "mcp_task",
    runId: context.runId,
    callId: context.callId,
    toolName,
    server,
    taskId,
    step: "resumed",
  });
}

function taskEvent(
  ids: { runId: string; callId: string; toolName: string; server: string },
  event: McpTaskEvent,
): Parameters<typeof emitEvent>[1] {
  const base = { type: "mcp_task" as const, ...ids, taskId: event.taskId };
  switch (event.kind) {
    case "created":
      return { ...base, step: "created", status: event.status, pollIntervalMs: event.pollIntervalMs };
    case "status":
      return { ...base, step: "status", status: event.status };
    case "cancel_sent":
      return { ...base, step: "cancel_sent", ok: event.ok };
  }
}
