import { FLOW_SOURCE_KINDS, type FlowSource } from "@agent/tools";
import type { ApprovalRequest } from "./approval-store.js";

/** What a store keeps of the flow guard's part in a request (one JSON value, e.g. a `flow_json` column). */
export interface ApprovalFlow {
  heldBy?: "tainted_flow";
  taint?: FlowSource[];
}

/** The flow fields of `request` as one value to store, or `undefined` for a request of a clean run. */
export function approvalFlowOf(request: Pick<ApprovalRequest, "heldBy" | "taint">): ApprovalFlow | undefined {
  if (request.heldBy === undefined && (request.taint === undefined || request.taint.length === 0)) {
    return undefined;
  }
  const flow: ApprovalFlow = {};
  if (request.heldBy !== undefined) flow.heldBy = request.heldBy;
  if (request.taint && request.taint.length > 0) flow.taint = request.taint;
  return flow;
}

/**
 * Sets the flow fields stored as `flow` (what {@link approvalFlowOf} gave) on `request`. A stored
 * value of another shape is kept as a taint of unknown origin rather than dropped: a request that was
 * judged tainted is never shown as clean.
 */
export function restoreApprovalFlow(request: ApprovalRequest, flow: unknown): void {
  if (flow === null || flow === undefined) return;
  const value = flow as Partial<Record<keyof ApprovalFlow, unknown>>;
  if (value.heldBy === "tainted_flow") request.heldBy = "tainted_flow";
  const sources = Array.isArray(value.taint) ? value.taint.filter(isFlowSource) : [];
  if (Array.isArray(value.taint) && sources.length === value.taint.length && sources.length > 0) {
    request.taint = sources;
  } else if (value.taint !== undefined) {
    request.taint = [{ kind: "tool", name: "(unreadable taint record)", turn: 0 }];
  }
}

function isFlowSource(value: unknown): value is FlowSource {
  if (typeof value !== "object" || value === null) return false;
  const source = value as Record<string, unknown>;
  return (
    (FLOW_SOURCE_KINDS as readonly unknown[]).includes(source.kind) &&
    typeof source.name === "string" &&
    typeof source.turn === "number" &&
    (source.server === undefined || typeof source.server === "string")
  );
}
