import {
  type EventSink,
  emitEvent,
  OBSERVATION_ERROR_CODES,
  type ToolContext,
  type ToolFailure,
  toolFailure,
} from "@agent/tools";
import { isSafetyRefusal, type PathRefusal } from "./path-guard.js";

/**
 * Turns a refused path into the tool's failure (`tool_error`, with the refusal code as `data`), and
 * audits safety refusals (outside the workspace, protected, changed while opened) as `local_path_refused`.
 */
export function refusePath(
  refusal: PathRefusal,
  call: { toolName: string; path: string; context: ToolContext; events: EventSink },
): ToolFailure {
  if (isSafetyRefusal(refusal)) {
    emitEvent(call.events, {
      type: "local_path_refused",
      runId: call.context.runId,
      callId: call.context.callId,
      toolName: call.toolName,
      code: refusal.code,
      path: call.path,
    });
  }
  return toolFailure(OBSERVATION_ERROR_CODES.toolError, refusal.message, { data: { refusal: refusal.code } });
}
